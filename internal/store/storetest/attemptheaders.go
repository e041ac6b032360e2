package storetest

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testAttemptHeaders records attempts with and without headers in one
// batch and reads them back: exactly as given within the bounds, nil when
// none were given, and, past the bounds, the values that fit in name
// order with the rest counted.
func testAttemptHeaders(t *testing.T, s store.DB) {
	for _, id := range []string{"evt_h1", "evt_h2", "evt_h3"} {
		ingest(t, s, item(dueEvent(id, baseTime), "billing"))
	}
	cs := claim(t, s, "billing", 3, baseTime)
	if len(cs) != 3 {
		t.Fatalf("claimed %d deliveries, want 3", len(cs))
	}
	sent := map[string][]string{
		"Content-Type":      {"application/json"},
		"Webhook-Signature": {"v1,K5oZfz…"},
		"X-Forwarded":       {"a", "b"},
	}
	answered := map[string][]string{"Retry-After": {"30"}, "X-Request-Id": {"req_ü\x01"}}
	many := map[string][]string{}
	for i := range store.MaxAttemptHeaders + 1 {
		many[fmt.Sprintf("X-H%02d", i)] = []string{"v"}
	}
	large := map[string][]string{"A-Small": {"1"}, "B-Huge": {strings.Repeat("x", store.MaxAttemptHeaderBytes)}, "C-Small": {"2"}}

	with := outcome(cs[0], store.StatusFailed, baseTime)
	with.Attempt.RequestHeaders, with.Attempt.ResponseHeaders = sent, answered
	with.Attempt.HeadersDropped = 7 // ignored: the store counts
	without := outcome(cs[1], store.StatusDone, baseTime)
	bounded := outcome(cs[2], store.StatusDead, baseTime)
	bounded.Attempt.RequestHeaders, bounded.Attempt.ResponseHeaders = many, large
	if _, err := s.CompleteDeliveries(context.Background(), []store.Completion{with, without, bounded}); err != nil {
		t.Fatalf("CompleteDeliveries: %v", err)
	}

	a := oneAttempt(t, s, with.DeliveryID)
	if !reflect.DeepEqual(a.RequestHeaders, sent) || !reflect.DeepEqual(a.ResponseHeaders, answered) || a.HeadersDropped != 0 {
		t.Errorf("attempt headers = %v, %v, %d dropped; want %v, %v, 0", a.RequestHeaders, a.ResponseHeaders, a.HeadersDropped, sent, answered)
	}
	if a := oneAttempt(t, s, without.DeliveryID); a.RequestHeaders != nil || a.ResponseHeaders != nil || a.HeadersDropped != 0 {
		t.Errorf("attempt without headers read back with %v, %v, %d dropped; want nil, nil, 0", a.RequestHeaders, a.ResponseHeaders, a.HeadersDropped)
	}
	a = oneAttempt(t, s, bounded.DeliveryID)
	names := slices.Sorted(maps.Keys(many))
	wantKept := map[string][]string{}
	for _, k := range names[:store.MaxAttemptHeaders] {
		wantKept[k] = many[k]
	}
	wantLarge := map[string][]string{"A-Small": {"1"}, "C-Small": {"2"}}
	if !reflect.DeepEqual(a.RequestHeaders, wantKept) || !reflect.DeepEqual(a.ResponseHeaders, wantLarge) || a.HeadersDropped != 2 {
		t.Errorf("bounded attempt kept %d request headers, response headers %v, %d dropped; want the first %d, %v, 2 dropped",
			len(a.RequestHeaders), slices.Sorted(maps.Keys(a.ResponseHeaders)), a.HeadersDropped, store.MaxAttemptHeaders, slices.Sorted(maps.Keys(wantLarge)))
	}
}

// oneAttempt returns the one attempt of a delivery.
func oneAttempt(t *testing.T, s store.DB, deliveryID int64) store.Attempt {
	t.Helper()
	as := attempts(t, s, deliveryID)
	if len(as) != 1 {
		t.Fatalf("delivery %d has %d attempts, want 1", deliveryID, len(as))
	}
	return as[0]
}
