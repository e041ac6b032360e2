package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestSendProviderPresets runs `hookrelay send` against a relay with a
// source per provider preset: each send is signed as the provider would
// sign it, and the relay verifies and stores it; a send signed with
// another secret is refused 401.
func TestSendProviderPresets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	seed := func(b byte) []byte { return []byte(strings.Repeat(string(rune(b)), ed25519.SeedSize)) }
	discordKey, v1aKey := ed25519.NewKeyFromSeed(seed('d')), ed25519.NewKeyFromSeed(seed('s'))
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(ecKey)
	if err != nil {
		t.Fatal(err)
	}
	spki, err := x509.MarshalPKIXPublicKey(&ecKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{
		"discord":      write("discord.key", hex.EncodeToString(seed('d'))),
		"standard-v1a": write("v1a.key", base64.StdEncoding.EncodeToString(seed('s'))),
		"sendgrid":     write("sendgrid.pem", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))),
	}
	sources := fmt.Sprintf(`sources:
  - {name: twilio, verify: twilio, secrets: ["${E2E_SECRET}"], public_url: "https://relay.example.com/webhooks/twilio"}
  - {name: paddle, verify: paddle, secrets: ["${E2E_SECRET}"]}
  - {name: zoom, verify: zoom, secrets: ["${E2E_SECRET}"]}
  - {name: meta, verify: meta, secrets: ["${E2E_SECRET}"], verify_token: "${E2E_SECRET}"}
  - {name: mailgun, verify: mailgun, secrets: ["${E2E_SECRET}"]}
  - {name: square, verify: square, secrets: ["${E2E_SECRET}"], public_url: "https://relay.example.com/webhooks/square"}
  - {name: linear, verify: linear, secrets: ["${E2E_SECRET}"]}
  - {name: intercom, verify: intercom, secrets: ["${E2E_SECRET}"]}
  - {name: msgraph, verify: msgraph, secrets: ["${E2E_SECRET}"]}
  - {name: discord, verify: discord, public_keys: [%q]}
  - {name: sendgrid, verify: sendgrid, public_keys: [%q]}
  - {name: standard-v1a, verify: standard, public_keys: [%q]}
`, hex.EncodeToString(discordKey.Public().(ed25519.PublicKey)), base64.StdEncoding.EncodeToString(spki),
		"whpk_"+base64.StdEncoding.EncodeToString(v1aKey.Public().(ed25519.PublicKey)))
	payloads := []struct{ source, body string }{
		{"twilio", `{"sid":"SM1","status":"delivered"}`},
		{"paddle", `{"event_id":"evt_e2e","event_type":"transaction.completed","data":{}}`},
		{"zoom", `{"event":"meeting.started","event_ts":1700000000000,"payload":{}}`},
		{"meta", `{"object":"page","entry":[]}`},
		{"mailgun", `{"event-data":{"id":"m1","event":"delivered","timestamp":1700000000.5}}`},
		{"square", `{"event_id":"sq-e2e","type":"payment.updated","data":{}}`},
		{"linear", `{"action":"create","type":"Issue","data":{"id":"a1"},"webhookTimestamp":0}`},
		{"intercom", `{"id":"notif_e2e","topic":"user.created","created_at":1700000000}`},
		{"msgraph", `{"value":[{"subscriptionId":"s1","clientState":"","changeType":"created"}]}`},
		{"discord", `{"id":"1056","type":2,"data":{"name":"blep"}}`},
		{"sendgrid", `[{"email":"a@example.com","event":"delivered","sg_event_id":"e1"}]`},
		{"standard-v1a", `{"id":"msg_e2e","type":"invoice.paid"}`},
	}
	env := []string{"E2E_SECRET=provider-secret"}
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			p := startRelay(t, db, sources, env)
			for _, pl := range payloads {
				args := []string{"send", "--config", p.configPath, "--source", pl.source, "--file", write(pl.source+".json", pl.body)}
				if k, ok := keys[pl.source]; ok {
					args = append(args, "--private-key", k)
				}
				if r := run(t, env, args...); r.code != 0 || r.stdout != "200 {\"status\":\"stored\"}\n" {
					t.Errorf("send %s: exit %d stdout %q stderr %q", pl.source, r.code, r.stdout, r.stderr)
				}
				if _, ok := keys[pl.source]; ok {
					continue
				}
				if r := run(t, []string{"E2E_SECRET=another-secret"}, args...); r.code != 1 || r.stdout != "401 {\"error\":\"signature_mismatch\"}\n" {
					t.Errorf("send %s with another secret: exit %d stdout %q stderr %q", pl.source, r.code, r.stdout, r.stderr)
				}
			}
			// A private key that is not the source's is refused before
			// anything is sent.
			args := []string{"send", "--config", p.configPath, "--source", "discord", "--file", write("d.json", `{"id":"1","type":2}`),
				"--private-key", keys["standard-v1a"]}
			if r := run(t, env, args...); r.code == 0 || !strings.Contains(r.stderr, "does not match") {
				t.Errorf("send with another key: exit %d stderr %q", r.code, r.stderr)
			}
			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exit code %d", code)
			}
			n, err := openStore(t, db).CountEvents(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(payloads)) {
				t.Errorf("%d events stored; want %d", n, len(payloads))
			}
		})
	}
}
