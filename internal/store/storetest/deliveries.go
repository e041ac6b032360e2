package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// checkDestinations fails unless ds go to want, in that order.
func checkDestinations(t *testing.T, ds []store.Delivery, want ...string) {
	t.Helper()
	got := make([]string, len(ds))
	for i, d := range ds {
		got[i] = d.Destination
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("deliveries go to %q, want %q", got, want)
	}
}

func testDeliveriesCreated(t *testing.T, s store.DB) {
	before := time.Now().Add(-time.Minute)
	e := newEvent("stripe", "evt_1")
	it := store.IngestItem{Event: e, Deliveries: []store.NewDelivery{
		{Destination: "billing", OrderingKey: "sub_42"},
		{Destination: "audit"},
	}}
	checkInserted(t, ingest(t, s, it), true)
	after := time.Now().Add(time.Minute)

	ds := deliveries(t, s, e.ID)
	checkDestinations(t, ds, "audit", "billing")
	if len(ds) != 2 {
		return
	}
	if ds[0].ID == ds[1].ID {
		t.Errorf("both deliveries have id %d", ds[0].ID)
	}
	for i, wantKey := range []string{"", "sub_42"} {
		d := ds[i]
		if d.EventID != e.ID || d.Status != store.StatusPending || d.Attempts != 0 || d.ReplayCount != 0 ||
			d.OrderingKey != wantKey || d.LastError != "" || d.LastStatusCode != 0 {
			t.Errorf("delivery to %s = %+v, want event %s, pending, no attempts, no replays, ordering key %q, no error",
				d.Destination, d, e.ID, wantKey)
		}
		checkTime(t, "NextAttemptAt", d.NextAttemptAt, e.ReceivedAt)
		checkTime(t, "LeaseUntil", d.LeaseUntil, time.Time{})
		checkTime(t, "FinishedAt", d.FinishedAt, time.Time{})
		checkTime(t, "UpdatedAt", d.UpdatedAt, d.CreatedAt)
		if d.CreatedAt.Before(before) || d.CreatedAt.After(after) || d.CreatedAt.Location() != time.UTC {
			t.Errorf("CreatedAt = %v, want about now, in UTC", d.CreatedAt)
		}
	}
}

func testDeliveriesNoneListed(t *testing.T, s store.DB) {
	e := newEvent("stripe", "evt_1")
	checkInserted(t, ingest(t, s, item(e)), true)
	checkDestinations(t, deliveries(t, s, e.ID))
}

// testDeliveriesOrdered checks that the order is bytewise, whatever the
// database's collation.
func testDeliveriesOrdered(t *testing.T, s store.DB) {
	e := newEvent("stripe", "evt_1")
	checkInserted(t, ingest(t, s, item(e, "beta", "alpha", "_x", "Zeta", "Alpha", "alpha-2", "alpha 2")), true)
	checkDestinations(t, deliveries(t, s, e.ID), "Alpha", "Zeta", "_x", "alpha", "alpha 2", "alpha-2", "beta")
}

// testDeliveriesRepeatedDestination checks that a destination listed twice
// for one event is one delivery, not a failed batch.
func testDeliveriesRepeatedDestination(t *testing.T, s store.DB) {
	e := newEvent("stripe", "evt_1")
	other := newEvent("stripe", "evt_2")
	it := store.IngestItem{Event: e, Deliveries: []store.NewDelivery{
		{Destination: "billing", OrderingKey: "k1"},
		{Destination: "billing", OrderingKey: "k1"},
	}}
	checkInserted(t, ingest(t, s, it, item(other, "billing")), true, true)
	checkDestinations(t, deliveries(t, s, e.ID), "billing")
	checkDestinations(t, deliveries(t, s, other.ID), "billing")
}

func testDeliveriesUnknownEvent(t *testing.T, s store.DB) {
	checkDestinations(t, deliveries(t, s, "evt_unknown"))
}

// testGetDelivery checks that GetDelivery reads a delivery as its event's
// deliveries list it, before and after an outcome, and that an unknown id
// is not found.
func testGetDelivery(t *testing.T, s store.DB) {
	ctx := context.Background()
	e := newEvent("stripe", "evt_1")
	checkInserted(t, ingest(t, s, item(e, "billing", "audit")), true)
	check := func(when string) {
		t.Helper()
		for _, want := range deliveries(t, s, e.ID) {
			got, err := s.GetDelivery(ctx, want.ID)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: GetDelivery(%d) = %+v, %v; want %+v", when, want.ID, got, err, want)
			}
		}
	}
	check("pending")
	now := time.Now()
	cs := claim(t, s, "billing", 1, now)
	if len(cs) != 1 {
		t.Fatalf("claimed %d deliveries, want 1", len(cs))
	}
	comp := outcome(cs[0], store.StatusFailed, now)
	comp.NextAttemptAt = now.Add(time.Minute)
	complete(t, s, comp)
	check("failed")
	if _, err := s.GetDelivery(ctx, 1<<40); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetDelivery of an unknown id: error %v, want ErrNotFound", err)
	}
}
