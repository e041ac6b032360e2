package signature

import (
	"fmt"
	"net/http"
	"strings"
)

// requireHeaders reports the first of the named headers that is absent or
// empty.
func requireHeaders(h http.Header, names ...string) error {
	for _, name := range names {
		if h.Get(name) == "" {
			return fmt.Errorf("read %s: %w", name, ErrMissingSignature)
		}
	}
	return nil
}

// prefixed returns the signature in the header value v after its required
// prefix.
func prefixed(header, v, prefix string) (string, error) {
	if v == "" {
		return "", fmt.Errorf("read %s: %w", header, ErrMissingSignature)
	}
	sig, ok := strings.CutPrefix(v, prefix)
	if !ok {
		return "", fmt.Errorf("read %s: want prefix %q: %w", header, prefix, ErrMalformedSignature)
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
