package sqlstore

import (
	"sync"
	"time"
)

// LeaseBook keeps, for the deferred deliveries a store ingested
// (store.Lease.Deferred), which batch's row of delivery_leases holds each
// lease, and how many of each batch are not yet settled: recorded by an
// outcome statement, or handed back. Once a batch has none left, its row
// is deleted with the next outcome, a few milliseconds after its
// deliveries were, instead of by a claim's sweep once its lease has run
// out, which would write each of its deliveries again only to find it
// written. A batch this process never settles (it dies, or an outcome
// could not be written) is swept. The zero value is ready to use.
type LeaseBook struct {
	mu      sync.Mutex
	batchOf map[int64]int64       // deferred delivery id → its batch's row id
	batches map[int64]*leaseBatch // batch row id → what is left of it
	settled []int64               // batch rows to delete
}

// leaseBatch is what is left of one batch.
type leaseBatch struct {
	left  int       // deliveries not yet settled
	until time.Time // the earliest lease's end: past it, a claim may sweep the row
}

// maxBookedBatches bounds the batches a book holds: past it, those whose
// lease has run out — left to the sweep — are forgotten.
const maxBookedBatches = 1 << 14

// Add books one batch's deferred deliveries, ids, leased until until at
// the earliest; its row's id is the smallest.
func (b *LeaseBook) Add(ids []int64, until time.Time) {
	if len(ids) == 0 {
		return
	}
	batch := ids[0]
	for _, id := range ids {
		batch = min(batch, id)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.batchOf == nil {
		b.batchOf, b.batches = map[int64]int64{}, map[int64]*leaseBatch{}
	}
	if len(b.batches) >= maxBookedBatches {
		b.forgetEnded(time.Now())
	}
	for _, id := range ids {
		b.batchOf[id] = batch
	}
	b.batches[batch] = &leaseBatch{left: len(ids), until: until}
}

// Settle notes that the deferred deliveries ids are settled.
func (b *LeaseBook) Settle(ids []int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		batch, ok := b.batchOf[id]
		if !ok {
			continue
		}
		delete(b.batchOf, id)
		if lb := b.batches[batch]; lb != nil {
			if lb.left--; lb.left == 0 {
				delete(b.batches, batch)
				b.settled = append(b.settled, batch)
			}
		}
	}
}

// unwrittenMargin is how long before its batch's earliest lease ends a
// deferred delivery is still taken to have no row: a claim sweeps a batch
// once its lease has ended by the claimer's clock, which may run ahead.
const unwrittenMargin = 5 * time.Second

// Unwritten reports whether no delivery of ids can have a row yet: each
// is a deferred delivery of a batch this book holds, whose earliest lease
// ends more than a few seconds after now, so that no claim has swept it.
// Were one written all the same (a claimer's clock far ahead), writing
// its outcome as though it were not finds the row and records nothing,
// as when a lease is lost: its delivery is made again.
func (b *LeaseBook) Unwritten(ids []int64, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		batch, ok := b.batchOf[id]
		if !ok {
			return false
		}
		if lb := b.batches[batch]; lb == nil || !now.Add(unwrittenMargin).Before(lb.until) {
			return false
		}
	}
	return len(ids) > 0
}

// Take returns the batch rows to delete and forgets them; give them back
// with Untake when the statement that was to delete them failed.
func (b *LeaseBook) Take() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	rows := b.settled
	b.settled = nil
	return rows
}

// Untake puts back rows Take returned.
func (b *LeaseBook) Untake(rows []int64) {
	if len(rows) == 0 {
		return
	}
	b.mu.Lock()
	b.settled = append(b.settled, rows...)
	b.mu.Unlock()
}

// forgetEnded forgets the batches whose lease ran out before now, which a
// claim may have swept. The caller holds b.mu.
func (b *LeaseBook) forgetEnded(now time.Time) {
	for batch, lb := range b.batches {
		if lb.until.Before(now) {
			delete(b.batches, batch)
		}
	}
	for id, batch := range b.batchOf {
		if _, ok := b.batches[batch]; !ok {
			delete(b.batchOf, id)
		}
	}
}
