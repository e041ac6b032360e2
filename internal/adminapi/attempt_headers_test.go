package adminapi_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestShowAttemptHeaders: a push attempt's request and response headers,
// as the store kept them, are in the event's attempts.
func TestShowAttemptHeaders(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		id := b.sendStripe(t, "evt_headers", "invoice.paid")
		ctx := context.Background()
		cs, err := b.store.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: 1, Lease: time.Minute, Now: time.Now()})
		if err != nil || len(cs) != 1 {
			t.Fatalf("claim billing: %v, %v", cs, err)
		}
		sent := map[string][]string{"Webhook-Id": {id}, "Webhook-Signature": {"v1,K5oZfzN9…"}}
		answered := map[string][]string{"Retry-After": {"120"}, "X-Request-Id": {"req_42"}}
		err = b.store.CompleteDelivery(ctx, store.Completion{
			DeliveryID: cs[0].Delivery.ID, LeaseToken: cs[0].LeaseToken, Status: store.StatusFailed, Now: time.Now(),
			Attempt: store.Attempt{StatusCode: 503, Error: "status 503", RequestHeaders: sent, ResponseHeaders: answered},
		})
		if err != nil {
			t.Fatal(err)
		}
		var ev adminwire.EventDetail
		wantStatus(t, "show", b.call(t, readToken, "GET", "/api/v1/events/"+id, nil, &ev), 200)
		for _, d := range ev.Deliveries {
			if d.Destination != "billing" {
				continue
			}
			if len(d.AttemptLog) != 1 {
				t.Fatalf("billing attempts = %+v, want one", d.AttemptLog)
			}
			if a := d.AttemptLog[0]; !reflect.DeepEqual(a.RequestHeaders, sent) || !reflect.DeepEqual(a.ResponseHeaders, answered) {
				t.Errorf("attempt headers = %v / %v, want %v / %v", a.RequestHeaders, a.ResponseHeaders, sent, answered)
			}
		}
	})
}
