package signature

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

// hmacCases cover the generic scheme's option space.
var hmacCases = map[string]schemeCase{
	"sha256 hex body": {
		opts:         Options{Scheme: "hmac", HMAC: HMACOptions{Header: "X-Signature"}},
		required:     []string{"X-Signature"},
		malform:      func(h http.Header) { h.Set("X-Signature", "zz") },
		malformedErr: ErrMismatch,
	},
	"sha1 prefixed hex": {
		opts:         Options{Scheme: "hmac", HMAC: HMACOptions{Header: "X-Hub-Signature", Algorithm: "sha1", Prefix: "sha1="}},
		required:     []string{"X-Hub-Signature"},
		malform:      func(h http.Header) { h.Set("X-Hub-Signature", strings.TrimPrefix(h.Get("X-Hub-Signature"), "sha1=")) },
		malformedErr: ErrMalformedSignature,
	},
	"sha512 base64 with timestamp": {
		opts: Options{Scheme: "hmac", HMAC: HMACOptions{
			Header: "X-Sig", Algorithm: "sha512", Encoding: "base64", TimestampHeader: "X-Timestamp",
		}},
		timestamped:  true,
		required:     []string{"X-Sig", "X-Timestamp"},
		malform:      func(h http.Header) { h.Set("X-Timestamp", "yesterday") },
		malformedErr: ErrMalformedSignature,
	},
	"template with id and timestamp": {
		opts: Options{Scheme: "hmac", IDHeader: "X-Id", HMAC: HMACOptions{
			Header: "X-Sig", Prefix: "v0=", TimestampHeader: "X-Ts", SignedContent: "v0:{id}:{timestamp}:{body}",
		}},
		timestamped:  true,
		required:     []string{"X-Sig", "X-Ts", "X-Id"},
		malform:      func(h http.Header) { h.Set("X-Sig", "v1="+strings.TrimPrefix(h.Get("X-Sig"), "v0=")) },
		malformedErr: ErrMalformedSignature,
	},
}

func TestHMACVerify(t *testing.T) {
	t.Parallel()
	for name, sc := range hmacCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc.secret = plainSecret
			runVerifyCases(t, sc)
		})
	}
}

func TestHMACSignedIDIsChecked(t *testing.T) {
	t.Parallel()
	sc := hmacCases["template with id and timestamp"]
	sc.secret = plainSecret
	req := sc.signed(t, []string{"a"}, 0, spacedBody, testNow)
	req.Header.Set("X-Id", "msg_2")
	if _, err := verify(t, sc.with("a"), req); !errors.Is(err, ErrMismatch) {
		t.Errorf("Verify with another id = %v; want ErrMismatch", err)
	}
}

// TestHMACVectors verifies, with the generic scheme, the vectors of
// providers it can express.
func TestHMACVectors(t *testing.T) {
	t.Parallel()
	providers := []struct {
		scheme string
		hmac   HMACOptions
		skip   map[string]string
	}{
		{scheme: "linear", hmac: HMACOptions{Header: "Linear-Signature"},
			skip: map[string]string{"linear-stale-webhookTimestamp": "Linear's timestamp is a body field in milliseconds"}},
		{scheme: "intercom", hmac: HMACOptions{Header: "X-Hub-Signature", Algorithm: "sha1", Prefix: "sha1="}},
		{scheme: "zoom", hmac: HMACOptions{Header: "x-zm-signature", Prefix: "v0=",
			TimestampHeader: "x-zm-request-timestamp", SignedContent: "v0:{timestamp}:{body}"}},
		{scheme: "github", hmac: HMACOptions{Header: "X-Hub-Signature-256", Prefix: "sha256="},
			skip: map[string]string{"github-docs-vector-legacy-sha1": "the legacy header is another configuration"}},
		{scheme: "shopify", hmac: HMACOptions{Header: "X-Shopify-Hmac-Sha256", Encoding: "base64"}},
		{scheme: "slack", hmac: HMACOptions{Header: "X-Slack-Signature", Prefix: "v0=",
			TimestampHeader: "X-Slack-Request-Timestamp", SignedContent: "v0:{timestamp}:{body}"}},
	}
	wantErr := map[string]error{
		"octokit-verify-bad-hex":        ErrMismatch,
		"octokit-verify-garbage":        ErrMalformedSignature,
		"octokit-verify-wrong-secret":   ErrMismatch,
		"shopify-hex-instead-of-base64": ErrMismatch,
		"shopify-reserialised-body":     ErrMismatch,
		"slack-modified-body":           ErrMismatch,
		"slack-expired":                 ErrStale,
	}
	for _, p := range providers {
		t.Run(p.scheme, func(t *testing.T) {
			t.Parallel()
			runVectors(t, Options{Scheme: "hmac", HMAC: p.hmac}, wantErr, p.skip, p.scheme)
		})
	}
}

func TestHMACIdentify(t *testing.T) {
	t.Parallel()
	h := HMACOptions{Header: "X-Signature"}
	body := `{"event":{"id":12345678901234567890,"kind":"order.created"}}`
	runIdentityCases(t, []identityCase{
		{name: "id and type headers",
			opts:   Options{Scheme: "hmac", HMAC: h, IDHeader: "Linear-Delivery", TypeHeader: "Linear-Event"},
			header: header("Linear-Delivery", "234d1a4e", "Linear-Event", "Issue"), body: body,
			want: Identity{ID: "234d1a4e", Origin: store.IDFromHeader, Type: "Issue"}},
		{name: "id and type fields keep every digit",
			opts: Options{Scheme: "hmac", HMAC: h, IDField: "event.id", TypeField: "event.kind"}, body: body,
			want: Identity{ID: "12345678901234567890", Origin: store.IDFromBody, Type: "order.created"}},
		{name: "header wins over field",
			opts:   Options{Scheme: "hmac", HMAC: h, IDHeader: "X-Id", IDField: "event.id"},
			header: header("X-Id", "hdr"), body: body,
			want: Identity{ID: "hdr", Origin: store.IDFromHeader}},
		{name: "absent header falls to field",
			opts: Options{Scheme: "hmac", HMAC: h, IDHeader: "X-Id", IDField: "event.id"}, body: body,
			want: Identity{ID: "12345678901234567890", Origin: store.IDFromBody}},
		{name: "nothing configured hashes the body",
			opts: Options{Scheme: "hmac", HMAC: h}, body: body,
			want: Identity{ID: hashOf(body), Origin: store.IDFromHash}},
	})
}
