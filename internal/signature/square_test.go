package signature

import (
	"net/http"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var squareCase = schemeCase{
	opts:     Options{Scheme: "square", PublicURL: "https://relay.example.com/webhooks/square"},
	secret:   plainSecret,
	required: []string{"X-Square-Hmacsha256-Signature"},
	malform: func(h http.Header) {
		h.Set("X-Square-Hmacsha256-Signature", "!"+h.Get("X-Square-Hmacsha256-Signature"))
	},
	malformedErr: ErrMismatch,
}

func TestSquareVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, squareCase)
}

func TestSquareIdentify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "square", PublicURL: "https://x"}
	runIdentityCases(t, []identityCase{
		{name: "event", opts: o, body: `{"type":"payment.updated","event_id":"e1","created_at":"2023-11-14T22:13:20Z"}`,
			want: Identity{ID: "e1", Origin: store.IDFromBody, Type: "payment.updated", OccurredAt: time.Unix(1700000000, 0)}},
		{name: "no type", opts: o, body: `{"event_id":"e1"}`, wantErr: ErrMissingIdentity},
	})
}
