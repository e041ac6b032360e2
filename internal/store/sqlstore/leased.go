package sqlstore

import (
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// LeasedRows matches the deliveries an ingest creates leased (see
// store.Lease) with the ids their insert returns, and hands the ids to the
// leases only once the transaction is durable: a lease must never name a
// row that a rollback took back. The zero value is ready to use.
type LeasedRows struct {
	want    map[leasedRow]*store.Lease
	created []leasedID
}

// leasedRow is one delivery: an event and a destination, unique among
// deliveries.
type leasedRow struct{ event, destination string }

type leasedID struct {
	lease    *store.Lease
	id       int64
	deferred bool
}

// Want notes that the delivery d of the event eventID is inserted leased.
// A destination listed twice for one event is one row: its first lease
// gets the id, the other none.
func (l *LeasedRows) Want(eventID string, d store.NewDelivery) {
	if l.want == nil {
		l.want = map[leasedRow]*store.Lease{}
	}
	k := leasedRow{eventID, d.Destination}
	if _, ok := l.want[k]; !ok {
		l.want[k] = d.Lease
	}
}

// Created notes a leased row the insert returned.
func (l *LeasedRows) Created(eventID, destination string, id int64) {
	l.add(eventID, destination, id, false)
}

// Deferred notes a leased delivery whose id the insert reserved without
// writing its row (store.Lease.Deferred).
func (l *LeasedRows) Deferred(eventID, destination string, id int64) {
	l.add(eventID, destination, id, true)
}

func (l *LeasedRows) add(eventID, destination string, id int64, deferred bool) {
	if lease, ok := l.want[leasedRow{eventID, destination}]; ok {
		l.created = append(l.created, leasedID{lease, id, deferred})
	}
}

// DeferredLeases returns the ids of the deliveries noted deferred, and
// the earliest end of their leases.
func (l *LeasedRows) DeferredLeases() (ids []int64, until time.Time) {
	for _, c := range l.created {
		if !c.deferred {
			continue
		}
		ids = append(ids, c.id)
		if until.IsZero() || c.lease.Until.Before(until) {
			until = c.lease.Until
		}
	}
	return ids, until
}

// Settle sets each created row's id on its lease, and Deferred where its
// row is not written; call it once the transaction is durable.
func (l *LeasedRows) Settle() {
	for _, c := range l.created {
		c.lease.DeliveryID, c.lease.Deferred = c.id, c.deferred
	}
}
