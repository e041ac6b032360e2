package signature

import (
	"net/http"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

var discordCase = schemeCase{
	opts:         Options{Scheme: "discord"},
	secret:       plainSecret,
	publicKey:    discordKey,
	timestamped:  true,
	required:     []string{"X-Signature-Ed25519", "X-Signature-Timestamp"},
	missingErr:   ErrMismatch, // Discord wants 401 for a request it did not sign
	malform:      func(h http.Header) { h.Set("X-Signature-Ed25519", "zz"+h.Get("X-Signature-Ed25519")[2:]) },
	malformedErr: ErrMismatch,
}

func TestDiscordVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, discordCase)
}

func TestDiscordPing(t *testing.T) {
	t.Parallel()
	s, err := New(discordCase.with("a"))
	if err != nil {
		t.Fatal(err)
	}
	ping := discordCase.signed(t, []string{"a"}, 0, []byte(`{"id":"1","type":1,"application_id":"2"}`), testNow)
	if _, err := s.Verify(ping); err != nil {
		t.Fatal(err)
	}
	if h, ok := s.Handshake(ping); !ok || string(h.Body) != `{"type":1}` || h.ContentType != "application/json" {
		t.Errorf("Handshake = %q, %v", h.Body, ok)
	}
	command := discordCase.signed(t, []string{"a"}, 0, []byte(`{"id":"1","type":2}`), testNow)
	if _, ok := s.Handshake(command); ok {
		t.Error("a command was answered as a PING")
	}
}

func TestDiscordIdentify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "discord"}
	runIdentityCases(t, []identityCase{
		{name: "command", opts: o, body: `{"id":"1056","type":2}`,
			want: Identity{ID: "1056", Origin: store.IDFromBody, Type: "application_command"}},
		{name: "ping", opts: o, body: `{"id":"1055","type":1}`,
			want: Identity{ID: "1055", Origin: store.IDFromBody, Type: "ping"}},
		{name: "no id", opts: o, body: `{"type":2}`, wantErr: ErrMissingIdentity},
	})
}
