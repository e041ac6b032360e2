package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testLease is the lease of the queue tests' claims.
const testLease = 5 * time.Minute

// dueEvent returns an event received, and so due, at received, that
// occurred one second before.
func dueEvent(providerID string, received time.Time) store.Event {
	e := newEvent("stripe", providerID)
	e.ReceivedAt = received
	e.OccurredAt = received.Add(-time.Second)
	return e
}

// keyed wraps e with one delivery to destination under ordering key key.
func keyed(e store.Event, destination, key string) store.IngestItem {
	return store.IngestItem{Event: e, Deliveries: []store.NewDelivery{{Destination: destination, OrderingKey: key}}}
}

// claim calls ClaimDeliveries for up to max deliveries of destination at
// now, under testLease, and fails the test on error.
func claim(t *testing.T, q store.Queue, destination string, max int, now time.Time) []store.Claim {
	t.Helper()
	cs, err := q.ClaimDeliveries(context.Background(), store.ClaimRequest{Destination: destination, Max: max, Lease: testLease, Now: now})
	if err != nil {
		t.Fatalf("ClaimDeliveries(%s, %d, %v): %v", destination, max, now, err)
	}
	if cs == nil {
		t.Fatalf("ClaimDeliveries(%s, %d, %v) = nil, want a non-nil slice", destination, max, now)
	}
	return cs
}

// checkClaimed fails unless claims are of the events want, in that order.
func checkClaimed(t *testing.T, claims []store.Claim, want ...store.Event) {
	t.Helper()
	got := make([]string, len(claims))
	for i, c := range claims {
		got[i] = c.Delivery.EventID
	}
	ids := make([]string, len(want))
	for i, e := range want {
		ids[i] = e.ID
	}
	if fmt.Sprint(got) != fmt.Sprint(ids) {
		t.Fatalf("claimed events %v, want %v", got, ids)
	}
}

// outcome returns the completion of c with status at now: an attempt of
// 1.5 s at now that got a 200 (or a 503 when status is failed or dead).
func outcome(c store.Claim, status store.DeliveryStatus, now time.Time) store.Completion {
	a := store.Attempt{AttemptedAt: now.Add(-1500 * time.Millisecond), Duration: 1500 * time.Millisecond, StatusCode: 200, ResponseSnippet: "ok"}
	if status == store.StatusFailed || status == store.StatusDead {
		a.StatusCode, a.Error, a.ResponseSnippet = 503, "server answered 503", "busy"
	}
	return store.Completion{DeliveryID: c.Delivery.ID, EventID: c.Delivery.EventID, LeaseToken: c.LeaseToken, Status: status, Attempt: a, Now: now,
		Deferred: c.Deferred, Destination: c.Delivery.Destination}
}

// complete calls CompleteDelivery and fails the test on error.
func complete(t *testing.T, q store.Queue, c store.Completion) {
	t.Helper()
	if err := q.CompleteDelivery(context.Background(), c); err != nil {
		t.Fatalf("CompleteDelivery(%d, %s): %v", c.DeliveryID, c.Status, err)
	}
}

// checkLeaseLost fails unless CompleteDelivery of c reports the lease
// lost.
func checkLeaseLost(t *testing.T, q store.Queue, c store.Completion) {
	t.Helper()
	if err := q.CompleteDelivery(context.Background(), c); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("CompleteDelivery(%d) with a lost lease: error = %v, want ErrLeaseLost", c.DeliveryID, err)
	}
}

// attempts calls DeliveryAttempts and fails the test on error.
func attempts(t *testing.T, q store.Queue, deliveryID int64) []store.Attempt {
	t.Helper()
	as, err := q.DeliveryAttempts(context.Background(), deliveryID)
	if err != nil {
		t.Fatalf("DeliveryAttempts(%d): %v", deliveryID, err)
	}
	if as == nil {
		t.Fatalf("DeliveryAttempts(%d) = nil, want a non-nil slice", deliveryID)
	}
	return as
}

// theDelivery returns the one delivery of an event.
func theDelivery(t *testing.T, s store.DB, eventID string) store.Delivery {
	t.Helper()
	ds := deliveries(t, s, eventID)
	if len(ds) != 1 {
		t.Fatalf("event %s has %d deliveries, want 1", eventID, len(ds))
	}
	return ds[0]
}

// checkNextDue fails unless NextDue of destination is want, or reports
// none when want is zero.
func checkNextDue(t *testing.T, q store.Queue, destination string, want time.Time) {
	t.Helper()
	at, ok, err := q.NextDue(context.Background(), destination)
	if err != nil {
		t.Fatalf("NextDue(%s): %v", destination, err)
	}
	if ok != !want.IsZero() {
		t.Fatalf("NextDue(%s) = %v, %t; want %v", destination, at, ok, want)
	}
	checkTime(t, "NextDue", at, want)
}
