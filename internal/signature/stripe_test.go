package signature

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var stripeCase = schemeCase{
	opts:        Options{Scheme: "stripe"},
	secret:      func(n string) string { return "whsec_" + n },
	timestamped: true,
	required:    []string{"Stripe-Signature"},
	malform: func(h http.Header) {
		h.Set("Stripe-Signature", strings.ReplaceAll(h.Get("Stripe-Signature"), "v1=", "v0="))
	},
	malformedErr: ErrMalformedSignature,
}

func TestStripeVerify(t *testing.T) {
	t.Parallel()
	runVerifyCases(t, stripeCase)
}

func TestStripeVectors(t *testing.T) {
	t.Parallel()
	runVectors(t, Options{Scheme: "stripe"}, map[string]error{
		"stripe-v0-only-rejected":  ErrMalformedSignature,
		"stripe-too-old":           ErrStale,
		"stripe-tampered-body":     ErrMismatch,
		"stripe-timestamp-changed": ErrMismatch,
	}, nil, "stripe")
}

func TestParseStripeHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header  string
		wantTS  string
		want    []string
		wantErr bool
	}{
		{"t=1700000000,v1=abc", "1700000000", []string{"abc"}, false},
		{"t=1700000000,v1=abc,v1=def,v0=zzz", "1700000000", []string{"abc", "def"}, false},
		{"v1=abc,t=1700000000", "1700000000", []string{"abc"}, false},
		{" t=1700000000 , v1=abc ", "1700000000", []string{"abc"}, false},
		{"t=1700000000,v1=abc,,", "1700000000", []string{"abc"}, false},
		{"t=1700000000,v1=abc,foo=bar", "1700000000", []string{"abc"}, false},
		{"t=1700000000,v1=", "1700000000", []string{""}, false},
		{"t=1700000000", "", nil, true},
		{"t=1700000000,v0=abc", "", nil, true},
		{"v1=abc", "", nil, true},
		{"t=,v1=abc", "", nil, true},
		{"t=-1,v1=abc", "", nil, true},
		{"t=+1,v1=abc", "", nil, true},
		{"t=1.5,v1=abc", "", nil, true},
		{"t=1,t=2,v1=abc", "", nil, true},
		{"t=1,v1", "", nil, true},
		{"garbage", "", nil, true},
		{"", "", nil, true},
	}
	for _, tt := range tests {
		ts, _, sigs, err := parseStripeHeader(tt.header, nil)
		if tt.wantErr {
			if !errors.Is(err, ErrMalformedSignature) {
				t.Errorf("parse(%q) error = %v; want malformed", tt.header, err)
			}
			continue
		}
		if err != nil || ts != tt.wantTS || !slices.Equal(sigs, tt.want) {
			t.Errorf("parse(%q) = %q, %q, %v; want %q, %q", tt.header, ts, sigs, err, tt.wantTS, tt.want)
		}
	}
}

func TestStripeIdentify(t *testing.T) {
	t.Parallel()
	o := Options{Scheme: "stripe"}
	created := time.Unix(1700000000, 0)
	runIdentityCases(t, []identityCase{
		{name: "event", opts: o,
			body: `{"id":"evt_1","object":"event","type":"invoice.paid","created":1700000000,"data":{"object":{"id":"in_1"}}}`,
			want: Identity{ID: "evt_1", Origin: store.IDFromBody, Type: "invoice.paid", OccurredAt: created}},
		{name: "no created", opts: o, body: `{"id":"evt_1","type":"invoice.paid"}`,
			want: Identity{ID: "evt_1", Origin: store.IDFromBody, Type: "invoice.paid"}},
		{name: "unreadable created", opts: o, body: `{"id":"evt_1","type":"invoice.paid","created":"soon"}`,
			want: Identity{ID: "evt_1", Origin: store.IDFromBody, Type: "invoice.paid"}},
		{name: "no id", opts: o, body: `{"type":"invoice.paid"}`, wantErr: ErrMissingIdentity},
		{name: "empty id", opts: o, body: `{"id":"","type":"invoice.paid"}`, wantErr: ErrMissingIdentity},
		{name: "no type", opts: o, body: `{"id":"evt_1"}`, wantErr: ErrMissingIdentity},
		{name: "not json", opts: o, body: `id=evt_1`, wantErr: ErrMissingIdentity},
		{name: "configured id header as fallback",
			opts:   Options{Scheme: "stripe", IDHeader: "X-Event-Id"},
			header: header("X-Event-Id", "hdr_1"), body: `{"type":"invoice.paid"}`,
			want: Identity{ID: "hdr_1", Origin: store.IDFromHeader, Type: "invoice.paid"}},
		{name: "own id wins over configured",
			opts:   Options{Scheme: "stripe", IDHeader: "X-Event-Id"},
			header: header("X-Event-Id", "hdr_1"), body: `{"id":"evt_1","type":"invoice.paid"}`,
			want: Identity{ID: "evt_1", Origin: store.IDFromBody, Type: "invoice.paid"}},
	})
}

// FuzzStripeHeader checks that the parser never panics and that what it
// accepts is well-formed: a numeric t= and v1 values taken from the header
// that survive a round trip through the header format.
func FuzzStripeHeader(f *testing.F) {
	f.Add("t=1700000000,v1=4f1cd7feda9826e746b7d482c4badebb657398df1099e1046364f6196a230150")
	f.Fuzz(func(t *testing.T, header string) {
		ts, _, sigs, err := parseStripeHeader(header, nil)
		if err != nil {
			if !errors.Is(err, ErrMalformedSignature) {
				t.Fatalf("error %v is not ErrMalformedSignature", err)
			}
			return
		}
		if _, ok := parseUnix(ts); !ok || len(sigs) == 0 {
			t.Fatalf("accepted %q with t=%q and %d signatures", header, ts, len(sigs))
		}
		for _, s := range sigs {
			if !strings.Contains(header, "v1="+s) || strings.Contains(s, ",") {
				t.Fatalf("signature %q is not a v1 value of %q", s, header)
			}
		}
		again := "t=" + ts
		for _, s := range sigs {
			again += ",v1=" + s
		}
		ts2, _, sigs2, err := parseStripeHeader(again, nil)
		if err != nil || ts2 != ts || !slices.Equal(sigs2, sigs) {
			t.Fatalf("round trip of %q as %q = %q, %q, %v", header, again, ts2, sigs2, err)
		}
	})
}
