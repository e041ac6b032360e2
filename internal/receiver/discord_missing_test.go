package receiver_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestDiscordMissingSignature sends Discord's preset interactions without
// one or both signature headers: Discord checks an endpoint by sending
// requests it did not sign and wants 401, as its own library answers, so
// each is 401, never 400, and nothing is stored.
func TestDiscordMissingSignature(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			var discord providerCase
			for _, c := range providerCases(t) {
				if c.source() == "discord" {
					discord = c
				}
			}
			base, st := setupProviders(t, driver, []providerCase{discord})
			signed, err := signature.SignRequest(discord.opts, 0, signature.Message{Body: []byte(discord.body), Now: time.Now(), Key: discord.key})
			if err != nil {
				t.Fatal(err)
			}
			for name, drop := range map[string][]string{
				"no headers":   {"X-Signature-Ed25519", "X-Signature-Timestamp"},
				"no signature": {"X-Signature-Ed25519"},
				"no timestamp": {"X-Signature-Timestamp"},
			} {
				r := signed
				r.Header = signed.Header.Clone()
				for _, h := range drop {
					r.Header.Del(h)
				}
				if resp, text := discord.send(t, base, r); resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("%s: %d %s; want 401", name, resp.StatusCode, text)
				}
			}
			if resp, text := discord.send(t, base, signed); resp.StatusCode != http.StatusOK {
				t.Errorf("signed: %d %s; want 200", resp.StatusCode, text)
			}
			if n := storedEventCount(t, st); n != 1 {
				t.Errorf("%d events stored; want 1", n)
			}
		})
	}
}
