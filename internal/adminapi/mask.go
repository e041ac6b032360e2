package adminapi

import (
	"net/textproto"
	"strings"

	"github.com/hookrelay/hookrelay/internal/config"
)

// maskedValue replaces the value of a header that carries a signature or a
// credential in everything the API shows.
const maskedValue = "[masked]"

// signatureWords mark a header that carries a signature, a shared token or
// a secret, whatever the provider: Stripe-Signature, X-Hub-Signature-256,
// X-Shopify-Hmac-Sha256, Webhook-Signature, X-Gitlab-Token, ...
var signatureWords = []string{"signature", "hmac", "token", "secret"}

// maskSignatures returns a copy of headers with the value of every header
// that carries a signature replaced by maskedValue: the headers a name
// matching signatureWords, and the source's configured hmac header.
// Whoever reads an event through the API (a read token, the console) must
// not be able to post it again: for a scheme that signs the body alone,
// the body and its signature are all a replay needs. The stored headers
// are unchanged, so that verify still re-checks them.
func maskSignatures(headers map[string][]string, src *config.Source) map[string][]string {
	extra := ""
	if src != nil && src.HMAC.Header != "" {
		extra = textproto.CanonicalMIMEHeaderKey(src.HMAC.Header)
	}
	out := make(map[string][]string, len(headers))
	for name, values := range headers {
		if name == extra || carriesSignature(name) {
			masked := make([]string, len(values))
			for i := range masked {
				masked[i] = maskedValue
			}
			values = masked
		}
		out[name] = values
	}
	return out
}

func carriesSignature(name string) bool {
	lower := strings.ToLower(name)
	for _, w := range signatureWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}
