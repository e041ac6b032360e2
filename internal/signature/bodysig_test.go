package signature_test

import (
	"testing"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// TestBodySignature checks which schemes report their signature as covering
// the body alone: a captured request of theirs verifies again under a new
// delivery id, so the receiver checks re-posts of it.
func TestBodySignature(t *testing.T) {
	t.Parallel()
	const secret = "body-signature-secret"
	body := []byte(`{"id":"evt_1","type":"ping","event_id":"evt_1","topic":"ping","created_at":"2026-01-01T00:00:00Z"}`)
	cases := []struct {
		opts     signature.Options
		bodyOnly bool
	}{
		{signature.Options{Scheme: "github"}, true},
		{signature.Options{Scheme: "shopify"}, true},
		{signature.Options{Scheme: "meta"}, true},
		{signature.Options{Scheme: "intercom"}, true},
		{signature.Options{Scheme: "square", PublicURL: "https://relay.example/webhooks/square"}, true},
		{signature.Options{Scheme: "linear"}, true},
		{signature.Options{Scheme: "twilio", PublicURL: "https://relay.example/webhooks/twilio"}, true},
		{signature.Options{Scheme: "hmac", HMAC: signature.HMACOptions{Header: "X-Sig"}}, true},
		{signature.Options{Scheme: "hmac", HMAC: signature.HMACOptions{Header: "X-Sig", TimestampHeader: "X-Ts"}}, false},
		{signature.Options{Scheme: "hmac", IDHeader: "X-Id", HMAC: signature.HMACOptions{Header: "X-Sig", SignedContent: "{id}.{body}"}}, false},
		{signature.Options{Scheme: "stripe"}, false},
		{signature.Options{Scheme: "slack"}, false},
		{signature.Options{Scheme: "standard"}, false},
	}
	for _, c := range cases {
		name := c.opts.Scheme
		if c.opts.HMAC.TimestampHeader != "" || c.opts.HMAC.SignedContent != "" {
			name += "-signs-more"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o := c.opts
			o.Secrets = []string{secret}
			if o.Scheme == "standard" {
				o.Secrets = []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}
			}
			signed, err := signature.SignRequest(o, 0, signature.Message{ID: "delivery-1", Type: "ping", Body: body})
			if err != nil {
				t.Fatal(err)
			}
			s, err := signature.New(o)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Verify(signature.Request{Header: signed.Header, Body: signed.Body, RawQuery: signed.RawQuery})
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			if got := len(res.BodySignature) > 0; got != c.bodyOnly {
				t.Errorf("BodySignature = %x, want set: %t", res.BodySignature, c.bodyOnly)
			}
		})
	}
}
