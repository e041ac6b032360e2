package config

import (
	"slices"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// TestSchemesFollowSignature keeps the config and the signature package
// from drifting apart: every scheme the signature package builds is one a
// source may name, validates with the fields it needs, and builds from the
// source's SchemeOptions; every scheme the validator singles out by name is
// one the signature package knows.
func TestSchemesFollowSignature(t *testing.T) {
	t.Parallel()
	// needs sets what a scheme requires beyond a secret.
	needs := map[string]func(*Source){
		"standard": func(s *Source) { s.Secrets = []string{testSigning} },
		"hmac":     func(s *Source) { s.HMAC = HMAC{Header: "X-Sig", Algorithm: "sha256", Encoding: "hex"} },
		"twilio":   func(s *Source) { s.PublicURL = "https://relay.example.com/webhooks/p" },
		"square":   func(s *Source) { s.PublicURL = "https://relay.example.com/webhooks/p" },
		"meta":     func(s *Source) { s.VerifyToken = "t" },
		"discord":  func(s *Source) { s.Secrets, s.PublicKeys = nil, []string{testDiscordKey} },
		"sendgrid": func(s *Source) { s.Secrets, s.PublicKeys = nil, []string{testSendGridKey} },
	}
	for _, name := range signature.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := parse(t, validDoc, nil)
			s := Source{Name: "p", Verify: name, Secrets: []string{"s"}, Tolerance: Duration(time.Minute), MaxBody: 1024}
			if set, ok := needs[name]; ok {
				set(&s)
			}
			c.Sources = append(c.Sources, s)
			if err := c.Validate(); err != nil {
				t.Errorf("Validate() with verify: %s = %v", name, err)
			}
			if _, err := signature.New(s.SchemeOptions()); err != nil {
				t.Errorf("signature.New(SchemeOptions()) with verify: %s = %v", name, err)
			}
		})
	}
	named := slices.Concat(publicURLSchemes, publicKeySchemes, keyOnlySchemes, []string{"github", "hmac", "meta", "none"})
	for _, name := range named {
		if !slices.Contains(signature.Names(), name) {
			t.Errorf("config names scheme %q, which the signature package does not have", name)
		}
	}
	for name := range needs {
		if !slices.Contains(signature.Names(), name) {
			t.Errorf("test sets up scheme %q, which the signature package does not have", name)
		}
	}
}
