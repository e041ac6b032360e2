package delivery

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Leasing at ingest. A node that stores an event creates its deliveries
// to this engine's push destinations already leased to itself, in the
// same insert and transaction (store.NewDelivery.Lease), and once the
// transaction has committed hands them to the destinations' senders in
// memory: no claim query, no poll, no notification. The ingest path calls
// Reserve for each delivery before it commits, then Offer once the
// commit succeeded, or Unreserve when it failed or the event was a
// duplicate.
//
// A delivery is leased at ingest only when its place in the
// destination's window is taken first, so that a leased row never waits
// for room, and only where nothing a claim decides is needed: the
// destination is a push destination with no rate, not paused, its worker
// running, and the delivery has no ordering key (the key's head rule
// stays with the claim). While the worker has caught up with its queue,
// any room in the window will do. Once a delivery has found the window
// full (see worker.fallBehind), due deliveries wait in the queue, and
// ingest keeps only a share of the window (see ingestShare), so that
// claims, which take the oldest due first, always find room for a full
// batch beside it. Every other delivery is created pending and claimed
// as before. A leased delivery is a claimed one: if this node dies, its
// lease runs out and any node claims it; on shutdown the engine hands it
// back like any claimed delivery. The store may defer writing its row
// until its outcome (store.Lease.Deferred); its claim, completion and
// release then say so.

// Reserve takes room in the window of d's destination for one delivery
// the caller is about to ingest, and returns the lease to create it with,
// or nil when it is to be created pending (see above). ctx bounds the
// look at whether the destination is paused, which mostly answers from
// memory.
func (e *Engine) Reserve(ctx context.Context, d store.NewDelivery) *store.Lease {
	w, ok := e.workers[d.Destination]
	if !ok || d.OrderingKey != "" || w.limiter != nil || e.stopping.Load() {
		return nil
	}
	if paused, err := w.queue.IsPaused(ctx, w.name); err != nil || paused {
		return nil
	}
	if !w.reserveIngest() {
		return nil
	}
	return &store.Lease{Token: newLeaseToken(), Until: e.now().Add(w.lease)}
}

// Offer hands the engine the deliveries of ev that Reserve leased, once
// the ingest that created them has committed: each one created (its
// Lease.DeliveryID set) goes to its destination's senders as if claimed;
// the room of each one not created is given back. Deliveries without a
// lease are ignored. Offer never blocks on the senders: their room was
// taken by Reserve.
func (e *Engine) Offer(ev store.Event, ds []store.NewDelivery) {
	for _, d := range ds {
		w, ok := e.workers[d.Destination]
		if !ok || d.Lease == nil {
			continue
		}
		if d.Lease.DeliveryID == 0 {
			w.giveBackIngest()
			continue
		}
		w.offer(store.Claim{
			Delivery: store.Delivery{
				ID:            d.Lease.DeliveryID,
				EventID:       ev.ID,
				Destination:   d.Destination,
				Status:        store.StatusProcessing,
				Attempts:      1,
				NextAttemptAt: ev.ReceivedAt,
				LeaseUntil:    d.Lease.Until,
				CreatedAt:     ev.ReceivedAt,
				UpdatedAt:     ev.ReceivedAt,
			},
			LeaseToken: d.Lease.Token,
			Event:      ev,
			Deferred:   d.Lease.Deferred,
		})
	}
}

// Unreserve gives back the room Reserve took for ds' leases, when the
// ingest that was to create them failed. A lease whose row was committed
// after all (a commit whose answer was lost) runs out and its delivery is
// claimed then, by this node or another.
func (e *Engine) Unreserve(ds []store.NewDelivery) {
	for _, d := range ds {
		if w, ok := e.workers[d.Destination]; ok && d.Lease != nil {
			w.giveBackIngest()
		}
	}
}

// reserveIngest takes room for one delivery leased at ingest, if the
// worker runs and has room in its window: any room while it has caught
// up with its queue, room within ingestShare while it has not. Finding
// no room while caught up, it falls behind: the delivery it refused is
// created pending, and from then on claims, which take the oldest due
// first, must find room for a full batch beside what ingest holds.
func (w *worker) reserveIngest() bool {
	batch, window := w.claimShape()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return false
	}
	if w.held >= window {
		w.fallBehind()
		return false
	}
	if !w.caughtUp && w.atIngest >= ingestShare(batch, window, w.concurrency) {
		return false
	}
	w.held++
	w.atIngest++
	return true
}

// ingestShare is how many deliveries leased at ingest a worker that has
// fallen behind lets wait for its senders: what its window holds beyond
// the pushes under way and one full claim. A claim then finds room for
// its batch once the deliveries it claimed before have been taken by the
// senders, and the queue alternates between claimed batches, oldest due
// first, and new events leased at ingest, which need no claim. A
// worker whose pushes are not yet shown to be quick has no such room and
// leases nothing at ingest until a claim has caught up.
//
// Were ingest to stop leasing until the queue was caught up, a relay
// pressed near its limit would not catch up once it had fallen behind,
// as after a cold start under load: every new delivery would then take
// the claimed path, which costs more, and the backlog would keep growing.
func ingestShare(batch, window, concurrency int) int { return max(0, window-concurrency-batch) }

// leaveIngestShare notes that n deliveries leased at ingest no longer wait
// for a sender: a sender took them, or their room was given back.
func (w *worker) leaveIngestShare(n int) {
	if n == 0 {
		return
	}
	w.mu.Lock()
	w.atIngest -= n
	w.mu.Unlock()
}

// giveBackIngest returns the room reserveIngest took for a delivery that
// was not created: its ingest failed, or the event was a duplicate.
func (w *worker) giveBackIngest() {
	w.mu.Lock()
	w.atIngest--
	w.held--
	w.mu.Unlock()
	w.signalFreed()
}

// offer queues a delivery leased at ingest for the senders; once the
// worker has stopped it hands it back to the queue instead. Its room was
// taken by reserveIngest, so the queue has a place for it.
func (w *worker) offer(c store.Claim) {
	w.mu.Lock()
	if w.stopped {
		w.atIngest--
		w.mu.Unlock()
		w.release(c)
		return
	}
	w.ready <- queued{Claim: c, atIngest: true}
	w.mu.Unlock()
	w.engine.metrics.leased(w.name, leasedAtIngest, 1)
}

// fallBehind notes that a delivery found no room in the window and was
// created pending: the senders are not keeping up, and the queue holds
// due deliveries that claims must take first. The caller holds w.mu.
//
// A wake alone — deliveries made due by another node's ingest, a replay,
// a resume, or this node's own ingest that found the worker behind — does
// not fall behind. It starts a claim, which takes them beside new events
// while the window has room. Were it to fall behind, a busy relay whose
// in-flight ingest always holds some deliveries created pending while it
// was behind would never catch up: each such commit, landing after the
// claim that caught up, would put it behind anew.
func (w *worker) fallBehind() { w.caughtUp = false }

// catchUp notes that a claim found fewer deliveries than it asked for:
// the queue held no more that were due. A delivery committed pending
// while the claim ran, which it could not see, woke the claimers as it
// was committed, and the next claim takes it; meanwhile a delivery leased
// at ingest may start first, but never takes the room that claim needs
// for long: one that finds no room falls behind again.
func (w *worker) catchUp() {
	w.mu.Lock()
	w.caughtUp = true
	w.mu.Unlock()
}

// newLeaseToken returns a random lease token of 128 bits, in hex, like
// the tokens claims lease with.
func newLeaseToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails: it crashes the program instead
	return hex.EncodeToString(b[:])
}
