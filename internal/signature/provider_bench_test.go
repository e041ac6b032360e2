package signature

import (
	"crypto"
	"strings"
	"testing"
)

// benchProvider signs benchBody (or what the provider makes of it) for the
// scheme and returns the scheme and the request; key signs the public-key
// schemes.
func benchProvider(b *testing.B, o Options, key crypto.Signer) (Scheme, Request) {
	b.Helper()
	s, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	body := benchBody
	if o.Scheme == "msgraph" {
		body = []byte(`{"value":[{"subscriptionId":"s","clientState":"","changeType":"created","resource":"` + strings.Repeat("x", 1900) + `"}]}`)
	}
	r, err := SignRequest(o, 0, Message{ID: "msg_1", Type: "invoice.paid", Body: body, Now: testNow, Key: key})
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Header: r.Header, Body: r.Body, RawQuery: r.RawQuery, Now: testNow}
	if _, err := s.Verify(req); err != nil {
		b.Fatal(err)
	}
	return s, req
}

// BenchmarkProviderVerify verifies a 2 KiB body with each provider scheme,
// next to stripe's and standard's as they stand, for comparison in one run.
func BenchmarkProviderVerify(b *testing.B) {
	discordPub, discordPriv := discordKey(nil, "a")
	whpk, whpkPriv := whpkKey(nil, "a")
	sendgridPub, sendgridPriv := sendgridKey(nil, "a")
	url := "https://relay.example.com/webhooks/p"
	for _, c := range []struct {
		o   Options
		key crypto.Signer
	}{
		{Options{Scheme: "stripe", Secrets: []string{"whsec_new"}}, nil},
		{Options{Scheme: "standard", Secrets: []string{whsecSecret("a")}}, nil},
		{Options{Scheme: "paddle", Secrets: []string{"pdl_ntfset_a"}}, nil},
		{Options{Scheme: "zoom", Secrets: []string{"a"}}, nil},
		{Options{Scheme: "meta", Secrets: []string{"a"}}, nil},
		{Options{Scheme: "intercom", Secrets: []string{"a"}}, nil},
		{Options{Scheme: "linear", Secrets: []string{"a"}}, nil},
		{Options{Scheme: "square", Secrets: []string{"a"}, PublicURL: url}, nil},
		{Options{Scheme: "twilio", Secrets: []string{"a"}, PublicURL: url}, nil},
		{Options{Scheme: "mailgun", Secrets: []string{"a"}}, nil},
		{Options{Scheme: "msgraph", Secrets: []string{"a"}}, nil},
		{Options{Scheme: "discord", PublicKeys: []string{discordPub}}, discordPriv},
		{Options{Scheme: "standard", PublicKeys: []string{whpk}}, whpkPriv},
		{Options{Scheme: "sendgrid", PublicKeys: []string{sendgridPub}}, sendgridPriv},
	} {
		name := c.o.Scheme
		if c.key != nil && name == "standard" {
			name = "standard-v1a"
		}
		b.Run(name, func(b *testing.B) {
			s, req := benchProvider(b, c.o, c.key)
			b.SetBytes(int64(len(req.Body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Verify(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkManySignatures verifies a header of 5000 signature entries, none
// genuine: the cost is bounded by refusing more than maxSignatures entries
// before checking any, and stays near that of one request.
func BenchmarkManySignatures(b *testing.B) {
	const n = 5000
	whpk, whpkPriv := whpkKey(nil, "a")
	for _, c := range []struct {
		name, header string
		o            Options
		key          crypto.Signer
		entry        func(genuine string) string
	}{
		{"paddle", "Paddle-Signature", Options{Scheme: "paddle", Secrets: []string{"a", "b"}}, nil,
			func(g string) string {
				ts, _, _ := strings.Cut(g, ";")
				return ts + strings.Repeat(";h1="+strings.Repeat("0", 64), n)
			}},
		{"standard-v1a", "Webhook-Signature", Options{Scheme: "standard", PublicKeys: []string{whpk, whpk}}, whpkPriv,
			func(g string) string {
				return strings.TrimSpace(strings.Repeat(strings.Replace(g, "v1a,", "v1a,A", 1)[:len(g)]+" ", n))
			}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, req := benchProvider(b, c.o, c.key)
			req.Header = req.Header.Clone()
			req.Header.Set(c.header, c.entry(req.Header.Get(c.header)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Verify(req); err == nil {
					b.Fatal("a forged header verified")
				}
			}
		})
	}
}
