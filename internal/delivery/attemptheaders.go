package delivery

import (
	"net/http"
	"strings"
)

// What an attempt keeps of the headers it sent and received (the store
// bounds how many).
const (
	// signatureShown is how many characters of each signature a kept
	// Webhook-Signature shows after its version: enough to tell two
	// apart, too few to replay one.
	signatureShown = 8
	// notKept replaces a value an attempt does not keep.
	notKept = "(not kept)"
)

// sentHeaders returns the headers of a push as its attempt keeps them: a
// copy, with each signature of Webhook-Signature cut to its version and
// first signatureShown characters. The destination's secret is never in
// them: only the signature it made.
func sentHeaders(h http.Header) map[string][]string {
	out := make(map[string][]string, len(h))
	for k, vs := range h {
		if k == HeaderWebhookSignature {
			out[k] = []string{maskSignatures(strings.Join(vs, " "))}
			continue
		}
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// maskSignatures cuts each space-separated "version,signature" of a
// Webhook-Signature value to its version and first signatureShown
// characters, followed by "…".
func maskSignatures(v string) string {
	parts := strings.Fields(v)
	for i, p := range parts {
		version, sig, ok := strings.Cut(p, ",")
		if !ok {
			version, sig = "", p
		} else {
			version += ","
		}
		if len(sig) > signatureShown {
			sig = sig[:signatureShown] + "…"
		}
		parts[i] = version + sig
	}
	return strings.Join(parts, " ")
}

// answeredHeaders returns a destination's response headers as its attempt
// keeps them: a copy, with the values of Set-Cookie, which may open a
// session, replaced by notKept. Nil when there are none.
func answeredHeaders(h http.Header) map[string][]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string][]string, len(h))
	for k, vs := range h {
		if k == "Set-Cookie" {
			out[k] = []string{notKept}
			continue
		}
		out[k] = append([]string(nil), vs...)
	}
	return out
}
