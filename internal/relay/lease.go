package relay

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/groupcommit"
	"github.com/hookrelay/hookrelay/internal/receiver"
	"github.com/hookrelay/hookrelay/internal/store"
)

// leaser is what the receiver's commits need of a delivery engine that
// leases at ingest; *delivery.Engine implements it.
type leaser interface {
	Reserve(ctx context.Context, d store.NewDelivery) *store.Lease
	Offer(ev store.Event, ds []store.NewDelivery)
	Unreserve(ds []store.NewDelivery)
}

var _ leaser = (*delivery.Engine)(nil)

// leasingCommitter is the receiver's committer. When this process runs a
// delivery engine, it creates the deliveries that engine can take at once
// already leased to it and hands them over once their commit is durable
// (see delivery.Engine.Reserve); it wakes the destinations of the other
// deliveries, which are created pending and claimed, as the receiver did
// before. A receiver-only process, or one whose engine is not running,
// leases nothing.
type leasingCommitter struct {
	commit *groupcommit.Committer
	// engine is the running engine, nil when there is none; reload swaps
	// it. A commit keeps the engine it reserved with.
	engine atomic.Pointer[leaser]
	wake   func(destination string)
}

var _ receiver.Committer = (*leasingCommitter)(nil)

func newLeasingCommitter(c *groupcommit.Committer, wake func(destination string)) *leasingCommitter {
	return &leasingCommitter{commit: c, wake: wake}
}

// setEngine makes e the engine later commits lease for; nil leases
// nothing.
func (l *leasingCommitter) setEngine(e leaser) {
	if e == nil {
		l.engine.Store(nil)
		return
	}
	l.engine.Store(&e)
}

// Commit stores one event with its deliveries, leasing those the engine
// has room for, and returns once the transaction is durable.
func (l *leasingCommitter) Commit(ctx context.Context, item store.IngestItem) (store.IngestOutcome, error) {
	var eng leaser
	if p := l.engine.Load(); p != nil && len(item.Deliveries) > 0 {
		// The event goes to the senders as the store keeps it; one the
		// store refuses is committed as it is, to fail there.
		if items, err := store.Storable([]store.IngestItem{item}); err == nil {
			eng, item = *p, items[0]
			item.Deliveries = slices.Clone(item.Deliveries)
			for i := range item.Deliveries {
				item.Deliveries[i].Lease = eng.Reserve(ctx, item.Deliveries[i])
			}
		}
	}
	outcome, err := l.commit.Commit(ctx, item)
	inserted := err == nil && outcome == store.IngestStored
	if eng != nil {
		if inserted {
			eng.Offer(item.Event, item.Deliveries)
		} else {
			eng.Unreserve(item.Deliveries)
		}
	}
	if inserted && l.wake != nil {
		for _, d := range item.Deliveries {
			if d.Lease == nil {
				l.wake(d.Destination)
			}
		}
	}
	return outcome, err
}

// Close stops accepting events, commits everything already queued, and
// waits for the committers to finish.
func (l *leasingCommitter) Close() { l.commit.Close() }
