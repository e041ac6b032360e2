package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// CheckSettledLeasesDeleted checks, on a driver that defers the rows of
// deliveries leased at ingest (store.Lease.Deferred), that the row of
// delivery_leases of a batch goes with the outcome statement after the
// one that settled the batch's last delivery, long before its lease runs
// out, that the row of a batch not yet settled stays, and that a batch
// settled by a release goes too. leaseRows counts delivery_leases' rows.
func CheckSettledLeasesDeleted(t *testing.T, s store.DB, leaseRows func() int) {
	ctx := context.Background()
	until := time.Now().Add(time.Hour)
	batch := func(ids ...string) []store.Claim {
		t.Helper()
		var items []store.IngestItem
		for i, id := range ids {
			it := Item("stripe", id, []byte("{}"))
			it.Deliveries[0].Lease = &store.Lease{Token: "tok-" + id, Until: until.Add(time.Duration(i) * time.Second)}
			items = append(items, it)
		}
		if _, err := s.Ingest(ctx, items); err != nil {
			t.Fatalf("Ingest: %v", err)
		}
		var cs []store.Claim
		for _, it := range items {
			l := it.Deliveries[0].Lease
			if !l.Deferred {
				t.Skip("this store writes leased deliveries at ingest")
			}
			cs = append(cs, store.Claim{
				Delivery:   store.Delivery{ID: l.DeliveryID, EventID: it.Event.ID, Destination: "billing"},
				LeaseToken: l.Token, Deferred: true,
			})
		}
		return cs
	}
	done := func(cs ...store.Claim) {
		t.Helper()
		var comps []store.Completion
		for _, c := range cs {
			comps = append(comps, outcome(c, store.StatusDone, time.Now()))
		}
		if recorded, err := s.CompleteDeliveries(ctx, comps); err != nil || slices.Contains(recorded, false) {
			t.Fatalf("CompleteDeliveries = %v, %v; want all recorded", recorded, err)
		}
	}
	check := func(want int) {
		t.Helper()
		if n := leaseRows(); n != want {
			t.Errorf("delivery_leases holds %d rows, want %d", n, want)
		}
	}

	a, b, c := batch("lb_a1", "lb_a2"), batch("lb_b1", "lb_b2"), batch("lb_c1")
	check(3)
	done(a...)
	check(3) // a's row goes with the next statement
	done(b[0])
	check(2) // a's gone; b is half settled
	done(c...)
	check(2) // c's goes with the next statement
	rs := []store.Release{{DeliveryID: b[1].Delivery.ID, LeaseToken: b[1].LeaseToken, Deferred: true,
		EventID: b[1].Delivery.EventID, Destination: "billing"}}
	if err := s.ReleaseDeliveries(ctx, rs); err != nil {
		t.Fatalf("ReleaseDeliveries: %v", err)
	}
	done(batch("lb_d1")...)
	check(1) // b and c gone; d's stays
}
