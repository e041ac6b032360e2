package signature

import (
	"net/http"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var shopifyCase = schemeCase{
	opts:     Options{Scheme: "shopify"},
	secret:   plainSecret,
	required: []string{"X-Shopify-Hmac-Sha256"},
	// The header is bare base64: there is no structure to break, so text
	// that does not decode is a signature that matches nothing.
	malform:      func(h http.Header) { h.Set("X-Shopify-Hmac-Sha256", "not base64!") },
	malformedErr: ErrMismatch,
}

func TestShopifyVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, shopifyCase)
}

func TestShopifyVectors(t *testing.T) {
	t.Parallel()
	runVectors(t, Options{Scheme: "shopify"}, map[string]error{
		"shopify-hex-instead-of-base64": ErrMismatch,
		"shopify-reserialised-body":     ErrMismatch,
	}, nil, "shopify")
}

func TestShopifyIdentify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "shopify"}
	body := `{"id":820982911946154508,"email":"jon@example.com"}`
	triggered := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	runIdentityCases(t, []identityCase{
		{name: "webhook id", opts: o, body: body,
			header: header("X-Shopify-Webhook-Id", "b54557e4", "X-Shopify-Event-Id", "7b8c9d0a",
				"X-Shopify-Topic", "orders/create", "X-Shopify-Triggered-At", "2026-01-01T00:00:00.000000000Z"),
			want: Identity{ID: "b54557e4", Origin: store.IDFromHeader, Type: "orders/create", OccurredAt: triggered}},
		{name: "event id qualified by topic", opts: o, body: body,
			header: header("X-Shopify-Event-Id", "7b8c9d0a", "X-Shopify-Topic", "orders/paid"),
			want:   Identity{ID: "7b8c9d0a:orders/paid", Origin: store.IDFromHeader, Type: "orders/paid"}},
		{name: "event id without topic is not an id", opts: o, body: body,
			header: header("X-Shopify-Event-Id", "7b8c9d0a"),
			want:   Identity{ID: hashOf(body), Origin: store.IDFromHash}},
		{name: "no id headers hash the body", opts: o, body: body,
			header: header("X-Shopify-Topic", "orders/create"),
			want:   Identity{ID: hashOf(body), Origin: store.IDFromHash, Type: "orders/create"}},
		{name: "unreadable triggered at", opts: o, body: body,
			header: header("X-Shopify-Webhook-Id", "w1", "X-Shopify-Triggered-At", "yesterday"),
			want:   Identity{ID: "w1", Origin: store.IDFromHeader}},
	})
}
