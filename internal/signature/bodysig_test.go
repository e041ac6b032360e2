package signature_test

import (
	"bytes"
	"encoding/hex"
	"strings"
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

// TestBodySignatureDecoded checks that BodySignature is the MAC's bytes,
// the same for every spelling of one signature the scheme accepts, and
// that Twilio reports what it signs and the query it signed.
func TestBodySignatureDecoded(t *testing.T) {
	t.Parallel()
	const secret = "decoded-signature-secret"
	body := []byte(`{"ref":"refs/heads/main"}`)
	verify := func(t *testing.T, o signature.Options, r signature.SignedRequest) signature.Result {
		t.Helper()
		s, err := signature.New(o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Verify(signature.Request{Header: r.Header, Body: r.Body, RawQuery: r.RawQuery})
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		return res
	}
	sign := func(t *testing.T, o signature.Options, body []byte) signature.SignedRequest {
		t.Helper()
		r, err := signature.SignRequest(o, 0, signature.Message{ID: "d-1", Type: "push", Body: body})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	t.Run("github hex in any case, sha1 alone", func(t *testing.T) {
		t.Parallel()
		o := signature.Options{Scheme: "github", Secrets: []string{secret}, AllowSHA1: true}
		r := sign(t, o, body)
		want := verify(t, o, r).BodySignature
		hexMAC := strings.TrimPrefix(r.Header.Get("X-Hub-Signature-256"), "sha256=")
		if got := hex.EncodeToString(want); got != hexMAC {
			t.Fatalf("BodySignature = %s, want the decoded %s", got, hexMAC)
		}
		upper := signature.SignedRequest{Header: r.Header.Clone(), Body: r.Body}
		upper.Header.Set("X-Hub-Signature-256", "sha256="+strings.ToUpper(hexMAC))
		sha1Only := signature.SignedRequest{Header: r.Header.Clone(), Body: r.Body}
		sha1Only.Header.Del("X-Hub-Signature-256")
		for name, v := range map[string]signature.SignedRequest{"upper-case": upper, "sha1 alone": sha1Only} {
			if got := verify(t, o, v).BodySignature; !bytes.Equal(got, want) {
				t.Errorf("%s: BodySignature = %x, want %x", name, got, want)
			}
		}
	})
	t.Run("twilio form reordered", func(t *testing.T) {
		t.Parallel()
		o := signature.Options{Scheme: "twilio", Secrets: []string{secret}, PublicURL: "https://relay.example/webhooks/twilio?tenant=a"}
		r := sign(t, o, []byte("b=2&a=1"))
		first := verify(t, o, r)
		o.PublicURL = "https://relay.example/webhooks/twilio"
		r.RawQuery = "tenant=a"
		reordered := signature.SignedRequest{Header: r.Header, Body: []byte("a=1&b=%32&a=1"), RawQuery: r.RawQuery}
		a, b := verify(t, o, r), verify(t, o, reordered)
		if len(a.BodySignature) != 20 || !bytes.Equal(a.BodySignature, b.BodySignature) || !bytes.Equal(a.BodySignature, first.BodySignature) {
			t.Errorf("BodySignature = %x and %x, want one 20-byte MAC", a.BodySignature, b.BodySignature)
		}
		want := "https://relay.example/webhooks/twilio?tenant=aa1b2"
		if string(a.SignedContent) != want || string(b.SignedContent) != want {
			t.Errorf("SignedContent = %q and %q, want %q", a.SignedContent, b.SignedContent, want)
		}
		if a.SignedQuery != "tenant=a" {
			t.Errorf("SignedQuery = %q, want the request's query", a.SignedQuery)
		}
	})
}
