package receiver

import "net/http"

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

// storableHeaders returns a copy of h without the sensitive headers. The
// values share h's backing strings, which net/http never reuses.
func storableHeaders(h http.Header) map[string][]string {
	out := make(map[string][]string, len(h))
	for k, v := range h {
		if sensitiveHeaders[k] {
			continue
		}
		out[k] = v
	}
	return out
}
