package config

import (
	"fmt"
	"slices"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// Which schemes take the provider keys of a source.
var (
	publicURLSchemes = []string{"twilio", "square"}
	publicKeySchemes = []string{"discord", "sendgrid", "standard"}
	// keyOnlySchemes verify with public keys alone: a secret has no use.
	keyOnlySchemes = []string{"discord", "sendgrid"}
)

// providerKeys checks public_url, public_keys and verify_token against the
// source's scheme.
func (v *validator) providerKeys(p string, s *Source) {
	switch needs := slices.Contains(publicURLSchemes, s.Verify); {
	case needs && s.PublicURL == "":
		v.add(p+".public_url", "required for verify: %s (the URL the provider calls, as it sees it)", s.Verify)
	case needs:
		v.httpURL(p+".public_url", s.PublicURL)
	case s.PublicURL != "":
		v.add(p+".public_url", "only applies to verify: twilio or square")
	}

	switch {
	case slices.Contains(publicKeySchemes, s.Verify):
		for j, k := range s.PublicKeys {
			if k == "" {
				continue
			}
			if _, err := signature.ParsePublicKey(s.Verify, k); err != nil {
				v.add(fmt.Sprintf("%s.public_keys[%d]", p, j), "%v", err)
			}
		}
	case len(s.PublicKeys) > 0:
		v.add(p+".public_keys", "only applies to verify: discord, sendgrid or standard")
	}
	if slices.Contains(keyOnlySchemes, s.Verify) && s.ActiveSecrets() {
		v.add(p+".secrets", "not used by verify: %s, which verifies with public_keys", s.Verify)
	}

	if s.VerifyToken != "" && s.Verify != "meta" {
		v.add(p+".verify_token", "only applies to verify: meta")
	}
}
