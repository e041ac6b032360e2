package signature

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// required returns the value of the header, or an error wrapping
// ErrMissingSignature when it is absent or empty.
func required(h http.Header, name string) (string, error) {
	v := h.Get(name)
	if v == "" {
		return "", fmt.Errorf("read %s: %w", name, ErrMissingSignature)
	}
	return v, nil
}

// signedTime reads a timestamp header in unix seconds: its text, which is
// what was signed, and the time it says.
func signedTime(h http.Header, name string) (string, time.Time, error) {
	v, err := required(h, name)
	if err != nil {
		return "", time.Time{}, err
	}
	t, ok := parseUnix(v)
	if !ok {
		return "", time.Time{}, fmt.Errorf("read %s: not unix seconds: %w", name, ErrMalformedSignature)
	}
	return v, t, nil
}

// prefixed returns the signature in the header after its required
// prefix.
func prefixed(h http.Header, name, prefix string) (string, error) {
	v, err := required(h, name)
	if err != nil {
		return "", err
	}
	sig, ok := strings.CutPrefix(v, prefix)
	if !ok {
		return "", fmt.Errorf("read %s: want prefix %q: %w", name, prefix, ErrMalformedSignature)
	}
	return sig, nil
}

// canonical returns the canonical form of a configured header name, so
// that looking it up does not canonicalise it on every request; empty stays
// empty.
func canonical(name string) string {
	if name == "" {
		return ""
	}
	return http.CanonicalHeaderKey(name)
}

// maxSignatures bounds the signatures one header may offer. Providers send
// one, or a few while a secret is rotated; a header with more is refused as
// malformed before any is checked, so a header of thousands of entries
// costs one scan, not thousands of comparisons or public-key checks.
const maxSignatures = 16

// tooMany is the error of a header that offers more than maxSignatures.
func tooMany(name string) error {
	return fmt.Errorf("read %s: more than %d signatures: %w", name, maxSignatures, ErrMalformedSignature)
}
