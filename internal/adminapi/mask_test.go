package adminapi

import (
	"testing"

	"github.com/hookrelay/hookrelay/internal/config"
)

func TestMaskSignatures(t *testing.T) {
	t.Parallel()
	headers := map[string][]string{
		"Stripe-Signature":      {"t=1,v1=abc"},
		"X-Hub-Signature-256":   {"sha256=abc"},
		"X-Hub-Signature":       {"sha1=abc"},
		"X-Shopify-Hmac-Sha256": {"abc="},
		"Webhook-Signature":     {"v1,abc", "v1,def"},
		"X-Gitlab-Token":        {"tok"},
		"X-Acme-Sig":            {"abc"},
		"X-Github-Delivery":     {"72d3162e"},
		"Content-Type":          {"application/json"},
	}
	src := &config.Source{HMAC: config.HMAC{Header: "x-acme-sig"}}
	got := maskSignatures(headers, src)
	for name, values := range got {
		kept := name == "X-Github-Delivery" || name == "Content-Type"
		for i, v := range values {
			if kept && v != headers[name][i] || !kept && v != maskedValue {
				t.Errorf("%s = %q", name, values)
			}
		}
		if len(values) != len(headers[name]) {
			t.Errorf("%s has %d values, want %d", name, len(values), len(headers[name]))
		}
	}
	if headers["Stripe-Signature"][0] != "t=1,v1=abc" {
		t.Error("the stored headers were changed")
	}
}
