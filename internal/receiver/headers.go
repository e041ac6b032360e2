package receiver

import (
	"net/http"
	"strings"
)

// sensitiveHeaders are never stored: credentials of the caller or of the
// relay, and shared-token schemes' tokens (GitLab's token is the secret).
var sensitiveHeaders = map[string]bool{
	"Authorization":       true,
	"Proxy-Authorization": true,
	"Cookie":              true,
	"Set-Cookie":          true,
	"X-Gitlab-Token":      true,
	"X-Api-Key":           true,
	"X-Auth-Token":        true,
	"Connection":          true,
	"Keep-Alive":          true,
	"Te":                  true,
	"Trailer":             true,
	"Transfer-Encoding":   true,
	"Upgrade":             true,
}

// storableHeaders returns a copy of h without the sensitive headers and
// without those the caller's Connection header names: they belonged to the
// provider's connection (RFC 9110, section 7.6.1), and Connection itself is
// not stored to tell a destination about them later. The values share h's
// backing strings, which net/http never reuses.
func storableHeaders(h http.Header) map[string][]string {
	var hop map[string]bool
	for _, v := range h["Connection"] {
		for name := range strings.SplitSeq(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				if hop == nil {
					hop = map[string]bool{}
				}
				hop[http.CanonicalHeaderKey(name)] = true
			}
		}
	}
	out := make(map[string][]string, len(h))
	for k, v := range h {
		if sensitiveHeaders[k] || hop[k] {
			continue
		}
		out[k] = v
	}
	return out
}
