package receiver

import (
	"net/http"
	"testing"
)

// TestStorableHeadersDropConnectionNamed checks that headers the caller's
// Connection header names are not stored: Connection itself is not, so a
// destination forwarding provider headers could not tell they were
// hop-by-hop.
func TestStorableHeadersDropConnectionNamed(t *testing.T) {
	t.Parallel()
	h := http.Header{
		"Connection":       {"keep-alive, X-Hop", " x-other-hop ,"},
		"X-Hop":            {"hop"},
		"X-Other-Hop":      {"hop"},
		"Stripe-Signature": {"t=1,v1=00"},
		"Authorization":    {"Bearer x"},
	}
	got := storableHeaders(h)
	for _, k := range []string{"Connection", "X-Hop", "X-Other-Hop", "Authorization"} {
		if v, ok := got[k]; ok {
			t.Errorf("%s stored: %q", k, v)
		}
	}
	if got["Stripe-Signature"] == nil {
		t.Errorf("Stripe-Signature not stored: %q", got)
	}
	if got := storableHeaders(http.Header{"X-A": {"1"}}); len(got) != 1 {
		t.Errorf("without Connection: %q", got)
	}
}
