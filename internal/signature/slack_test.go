package signature

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var slackCase = schemeCase{
	opts:        Options{Scheme: "slack"},
	secret:      plainSecret,
	timestamped: true,
	required:    []string{"X-Slack-Signature", "X-Slack-Request-Timestamp"},
	malform: func(h http.Header) {
		h.Set("X-Slack-Signature", strings.Replace(h.Get("X-Slack-Signature"), "v0=", "v1=", 1))
	},
	malformedErr: ErrMalformedSignature,
}

func TestSlackVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, slackCase)
	t.Run("malformed timestamp", func(t *testing.T) {
		req := slackCase.signed(t, []string{"a"}, 0, spacedBody, testNow)
		req.Header.Set("X-Slack-Request-Timestamp", "now")
		if _, err := verify(t, slackCase.with("a"), req); !errors.Is(err, ErrMalformedSignature) {
			t.Errorf("Verify = %v; want ErrMalformedSignature", err)
		}
	})
}

func TestSlackVectors(t *testing.T) {
	t.Parallel()
	runVectors(t, Options{Scheme: "slack"}, map[string]error{
		"slack-modified-body": ErrMismatch,
		"slack-expired":       ErrStale,
	}, nil, "slack")
}

func TestSlackIdentify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "slack"}
	event := `{"token":"x","team_id":"T1","type":"event_callback","event_id":"Ev08MFMKH6","event_time":1234567890,` +
		`"event":{"type":"app_mention","text":"hi"}}`
	challenge := `{"token":"x","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`
	slash := `token=x&team_id=T1&command=%2Fweather&text=94070`
	runIdentityCases(t, []identityCase{
		{name: "events api", opts: o, body: event,
			want: Identity{ID: "Ev08MFMKH6", Origin: store.IDFromBody, Type: "app_mention", OccurredAt: time.Unix(1234567890, 0)}},
		{name: "url verification", opts: o, body: challenge,
			want: Identity{ID: hashOf(challenge), Origin: store.IDFromHash, Type: "url_verification"}},
		{name: "slash command hashes the body", opts: o, body: slash,
			want: Identity{ID: hashOf(slash), Origin: store.IDFromHash}},
	})
}

func TestSlackHandshake(t *testing.T) {
	t.Parallel()
	s, err := New(Options{Scheme: "slack", Secrets: []string{"s"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, body string
		want       string
		ok         bool
	}{
		{"challenge", `{"token":"x","challenge":"abc123","type":"url_verification"}`, "abc123", true},
		{"event callback", `{"type":"event_callback","challenge":"abc123","event_id":"Ev1"}`, "", false},
		{"no challenge", `{"type":"url_verification"}`, "", false},
		{"form body", `type=url_verification&challenge=abc`, "", false},
	}
	for _, tt := range tests {
		h, ok := s.Handshake(Request{Header: http.Header{}, Body: []byte(tt.body)})
		if ok != tt.ok || string(h.Body) != tt.want {
			t.Errorf("%s: Handshake = %q, %v; want %q, %v", tt.name, h.Body, ok, tt.want, tt.ok)
		}
		if ok && h.ContentType != "text/plain" {
			t.Errorf("%s: content type %q; want text/plain", tt.name, h.ContentType)
		}
	}
	// Other schemes never answer Slack's handshake.
	for _, name := range Names() {
		if name == "slack" {
			continue
		}
		other, err := New(minimalOptions(name))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := other.Handshake(Request{Body: []byte(tests[0].body)}); ok {
			t.Errorf("scheme %s answered a handshake", name)
		}
	}
}
