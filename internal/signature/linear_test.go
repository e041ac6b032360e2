package signature

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var linearCase = schemeCase{
	opts:         Options{Scheme: "linear"},
	secret:       plainSecret,
	timestamped:  true,
	required:     []string{"Linear-Signature"},
	malform:      func(h http.Header) { h.Set("Linear-Signature", "sha256="+h.Get("Linear-Signature")) },
	malformedErr: ErrMismatch,
}

func TestLinearVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, linearCase)
}

// TestLinearVectors runs the computed vectors and the fixture Linear's SDK
// accepted, with the SDK's one-minute tolerance.
func TestLinearVectors(t *testing.T) {
	t.Parallel()
	runVectors(t, Options{Scheme: "linear", Tolerance: time.Minute}, map[string]error{
		"linear-stale-webhookTimestamp": ErrStale,
	}, nil, "linear")
}

// TestLinearNeedsWebhookTimestamp refuses a genuine body that does not say
// when it was sent.
func TestLinearNeedsWebhookTimestamp(t *testing.T) {
	t.Parallel()
	o := linearCase.with("a")
	h, err := Sign(Options{Scheme: "intercom", Secrets: o.Secrets}, 0, Message{Body: spacedBody})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Header: http.Header{"Linear-Signature": []string{h.Get("X-Hub-Signature")[len("sha1="):]}}, Body: spacedBody}
	// An HMAC-SHA1 is not Linear's: a mismatch, not a missing timestamp.
	if _, err := verify(t, o, req); !errors.Is(err, ErrMismatch) {
		t.Fatalf("Verify = %v; want ErrMismatch", err)
	}
	req.Header = http.Header{}
	req.Header.Set("Linear-Signature", oracleLinear("a", spacedBody))
	if _, err := verify(t, o, req); !errors.Is(err, ErrMalformedSignature) {
		t.Errorf("Verify without webhookTimestamp = %v; want ErrMalformedSignature", err)
	}
}

func TestLinearIdentify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "linear"}
	body := `{"action":"create","type":"Issue","createdAt":"2023-11-14T22:13:20.000Z","webhookTimestamp":1700000000000}`
	runIdentityCases(t, []identityCase{
		{name: "issue", opts: o, body: body, header: header("Linear-Delivery", "234d1a4e"),
			want: Identity{ID: "234d1a4e", Origin: store.IDFromHeader, Type: "Issue.create", OccurredAt: time.Unix(1700000000, 0)}},
		{name: "no delivery header", opts: o, body: body,
			want: Identity{ID: hashOf(body), Origin: store.IDFromHash, Type: "Issue.create", OccurredAt: time.Unix(1700000000, 0)}},
	})
}
