package sqlstore

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

// TestAttemptHeadersRoundTrip checks that what EncodeAttemptHeaders writes
// by hand reads back as encoding/json would have kept it: escapes,
// control characters and invalid UTF-8 included.
func TestAttemptHeadersRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		req, res map[string][]string
	}{
		{"plain", map[string][]string{"Content-Type": {"application/json"}, "X-Two": {"a", "b"}}, nil},
		{"response only", nil, map[string][]string{"Retry-After": {"30"}}},
		{"escapes", map[string][]string{`X-"Quoted"\`: {"tab\there", "nl\nand\x00nul\x1f", `<&>`}}, map[string][]string{"X-U": {"é\u2028😀"}}},
		{"invalid UTF-8", map[string][]string{"X-Bad\xff": {"a\xffb\xc3", "\xe2\x82"}}, nil},
		{"empty values", map[string][]string{"X-Empty": {""}, "X-None": {}}, nil},
	} {
		a := store.Attempt{RequestHeaders: tc.req, ResponseHeaders: tc.res}
		b := EncodeAttemptHeaders(a)
		if !json.Valid(b) {
			t.Fatalf("%s: encoded %q is not JSON", tc.name, b)
		}
		var got store.Attempt
		if err := DecodeAttemptHeaders(b, &got); err != nil {
			t.Fatalf("%s: decode %q: %v", tc.name, b, err)
		}
		if want := viaJSON(t, tc.req); !reflect.DeepEqual(got.RequestHeaders, want) {
			t.Errorf("%s: request headers %q, want %q (from %s)", tc.name, got.RequestHeaders, want, b)
		}
		if want := viaJSON(t, tc.res); !reflect.DeepEqual(got.ResponseHeaders, want) {
			t.Errorf("%s: response headers %q, want %q (from %s)", tc.name, got.ResponseHeaders, want, b)
		}
	}
}

// viaJSON returns h as encoding/json round-trips it, leaving out names
// without values as EncodeAttemptHeaders does; nil when none is left.
func viaJSON(t *testing.T, h map[string][]string) map[string][]string {
	t.Helper()
	kept := map[string][]string{}
	for k, vs := range h {
		if len(vs) > 0 {
			kept[k] = vs
		}
	}
	if len(kept) == 0 {
		if len(h) == 0 {
			return nil
		}
		return map[string][]string{}
	}
	b, err := json.Marshal(kept)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string][]string
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestNoAttemptHeaders(t *testing.T) {
	t.Parallel()
	if b := EncodeAttemptHeaders(store.Attempt{RequestHeaders: map[string][]string{}}); b != nil {
		t.Errorf("EncodeAttemptHeaders of no headers = %q, want no bytes", b)
	}
	var a store.Attempt
	if err := DecodeAttemptHeaders(nil, &a); err != nil || a.RequestHeaders != nil || a.ResponseHeaders != nil {
		t.Errorf("DecodeAttemptHeaders(nil) = %+v, %v; want nothing", a, err)
	}
}

// BenchmarkEncodeAttemptHeaders encodes the headers of a push as the
// outcome path does.
func BenchmarkEncodeAttemptHeaders(b *testing.B) {
	a := store.Attempt{
		RequestHeaders: map[string][]string{
			"Content-Type": {"application/json"}, "Webhook-Id": {"01JTESTEVENT0000000000000A"},
			"Webhook-Timestamp": {"1772600767"}, "Webhook-Signature": {"v1,K5oZfzN9…"},
			"Hookrelay-Source": {"stripe"}, "Hookrelay-Event-Type": {"customer.subscription.updated"},
			"Hookrelay-Event-Id": {"evt_1NfA5dLkdIwHu7ixsjpWl0rT"}, "Hookrelay-Attempt": {"1"},
			"Hookrelay-Occurred-At": {"2026-03-04T05:06:07Z"}, "Hookrelay-Replay": {"0"}, "User-Agent": {"hookrelay"},
		},
		ResponseHeaders: map[string][]string{
			"Content-Type": {"application/json; charset=utf-8"}, "Content-Length": {"16"},
			"Date": {"Wed, 04 Mar 2026 05:06:07 GMT"}, "Server": {"nginx"},
			"X-Request-Id": {"8f14e45f-ceea-467e-a0a6-0e2d7c1b9a3f"}, "Vary": {"Accept-Encoding"},
		},
	}
	for b.Loop() {
		_ = EncodeAttemptHeaders(a)
	}
	b.ReportMetric(float64(len(EncodeAttemptHeaders(a))), "bytes")
}

func TestAttemptHeadersLongValueCut(t *testing.T) {
	t.Parallel()
	a := store.Attempt{ResponseHeaders: map[string][]string{"X-Long": {strings.Repeat("a", store.MaxAttemptHeaderBytes)}}}
	var got store.Attempt
	if err := DecodeAttemptHeaders(EncodeAttemptHeaders(a), &got); err != nil || len(got.ResponseHeaders) != 0 || got.HeadersDropped != 1 {
		t.Errorf("a value over the bound read back as %v, %d dropped, %v; want none kept, 1 dropped", got.ResponseHeaders, got.HeadersDropped, err)
	}
}
