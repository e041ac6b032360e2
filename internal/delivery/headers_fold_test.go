package delivery

import (
	"net/http"
	"testing"
)

// TestForwardHeadersFoldsReservedNames checks that a provider header
// cannot stand in for one hookrelay signs with, under the Svix names that
// Svix libraries prefer, or spelt with "_" for "-", which CGI, WSGI and
// Rack read as the same header.
func TestForwardHeadersFoldsReservedNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		stored  map[string][]string
		dropped string
	}{
		{"svix id", map[string][]string{"Svix-Id": {"msg_provider"}}, "Svix-Id"},
		{"svix signature", map[string][]string{"Svix-Signature": {"v1,provider"}}, "Svix-Signature"},
		{"svix timestamp", map[string][]string{"Svix-Timestamp": {"1"}}, "Svix-Timestamp"},
		{"underscore webhook signature", map[string][]string{"Webhook_signature": {"v1,provider"}}, "Webhook_signature"},
		{"underscore webhook id", map[string][]string{"webhook_id": {"msg_provider"}}, "Webhook_id"},
		{"underscore hookrelay replay", map[string][]string{"Hookrelay_Replay": {"7"}}, "Hookrelay_replay"},
		{"underscore svix", map[string][]string{"Svix_Signature": {"v1,provider"}}, "Svix_signature"},
		{"underscore not-forwarded name", map[string][]string{"Content_Length": {"1"}}, "Content_length"},
		{"hop header named with underscore",
			map[string][]string{"Connection": {"x_hop"}, "X-Hop": {"named in Connection"}}, "X-Hop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			forwardHeaders(h, tt.stored)
			if v, ok := h[tt.dropped]; ok {
				t.Errorf("%s forwarded: %q", tt.dropped, v)
			}
		})
	}
	h := http.Header{}
	forwardHeaders(h, map[string][]string{"X_Request_Id": {"req-1"}, "X-Svix-Like": {"kept"}})
	if h.Get("X_request_id") != "req-1" || h.Get("X-Svix-Like") != "kept" {
		t.Errorf("ordinary headers not forwarded: %q", h)
	}
}
