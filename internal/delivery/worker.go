package delivery

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Bounds on the store calls a worker makes.
const (
	// claimTimeout bounds one claim. A claim is not cut short by shutdown:
	// whatever it leased is then released rather than left to its lease.
	claimTimeout = 10 * time.Second
	// completeTimeout bounds recording one batch of outcomes, retries
	// included; it stays inside LeaseMargin.
	completeTimeout = 20 * time.Second
	// releaseTimeout bounds handing back what a stopping worker holds.
	releaseTimeout = 5 * time.Second
)

// worker delivers one push destination. Its claimers lease due deliveries
// in batches and queue them for its senders, concurrency goroutines that
// each push one delivery at a time and hand its outcome to the engine's
// outcome committer.
//
// A worker holds at most windowFor(concurrency) deliveries claimed and not
// yet pushed: concurrency being pushed and as many again queued, so that the
// next claim runs while the senders work through the last one and they
// never wait for it. Once its pushes are shown to be quick it claims more
// at once, and its window grows to match (see claimShape). A delivery's
// room comes back when its push ends, not when its outcome is written:
// outcomes are recorded in batches behind the senders, bounded by the
// committer's queue, and a key's next delivery becomes claimable only once
// its head's outcome is committed. A queued delivery waits at most one push
// of every sender before it starts (half a timeout in all, with a quick
// destination's larger window), which the lease covers (see pushLease). The
// window also bounds what a worker that dies leaves to run out its lease.
type worker struct {
	claimWaiter
	sender      *Sender
	policy      Policy
	limiter     *rate.Limiter // nil when the destination has no rate
	concurrency int
	lease       time.Duration
	speed       *pushSpeed // how long recent pushes took, for claimShape

	ready chan queued // leased deliveries waiting for a sender; room for the largest window

	mu       sync.Mutex
	held     int           // deliveries claimed, or reserved for a claim or an ingest, whose push has not ended
	claiming int           // claims begun by reserve and not yet ended
	freed    chan struct{} // signalled when held falls; capacity 1
	// caughtUp holds from a claim that found fewer deliveries than it
	// asked for until a delivery finds the window full (see fallBehind);
	// while it does not, deliveries are leased at ingest only within
	// ingestShare (see ingestlease.go).
	caughtUp bool
	// atIngest is how many of held are deliveries leased at ingest that
	// no sender has taken yet: reserved for an ingest, or queued.
	atIngest int
	stopped  bool // the senders have stopped: what is offered goes back to the queue

	failing atomic.Bool // the last claim failed; logged once until it recovers
}

// queued is a leased delivery waiting in a worker's queue for a sender.
type queued struct {
	store.Claim
	atIngest bool // leased by the ingest that stored it, not by a claim
}

func newWorker(e *Engine, q store.Queue, d config.Destination) (*worker, error) {
	// The config has applied its defaults and checked them: d's settings
	// are used as they are, and refused when they cannot work.
	if !absoluteHTTP(d.URL) {
		return nil, errors.New("url is not an absolute http(s) URL")
	}
	timeout, concurrency := d.Timeout.Std(), d.Concurrency
	if timeout <= 0 {
		return nil, fmt.Errorf("timeout %s is not above zero", timeout)
	}
	if concurrency < 1 {
		return nil, fmt.Errorf("concurrency %d is less than 1", concurrency)
	}
	w := &worker{
		claimWaiter: newClaimWaiter(e, q, d.Name),
		sender:      NewSender(Target{URL: d.URL, Secret: d.Secret, ForwardHeaders: d.ForwardHeaders}, timeout, concurrency, e.now),
		policy:      PolicyFor(d),
		concurrency: concurrency,
		lease:       pushLease(timeout),
		speed:       newPushSpeed(timeout),
		ready:       make(chan queued, fastWindowFor(concurrency)),
		freed:       make(chan struct{}, 1),
	}
	if limit := d.Rate.Limit(); limit != rate.Inf {
		if limit <= 0 {
			return nil, fmt.Errorf("rate %s allows nothing", d.Rate)
		}
		// The burst lets a fast rate start a full batch at once, while a
		// slow one (1/m) never starts two together.
		burst := max(1, min(concurrency, int(limit)))
		w.limiter = rate.NewLimiter(limit, burst)
	}
	return w, nil
}

// windowFor is how many claimed deliveries a worker with the given
// concurrency holds before their pushes end: one claim of concurrency
// queued behind as many being pushed. A busy worker claims concurrency at a
// time, which costs the store less per delivery than smaller claims, while
// the queued half keeps its senders fed during the claim.
func windowFor(concurrency int) int { return 2 * concurrency }

// pushLease is the lease of a claim pushed with the given timeout: a push
// waits in the queue for at most one push of the senders ahead of it, then
// runs for at most timeout, and LeaseMargin is left to record its outcome.
func pushLease(timeout time.Duration) time.Duration { return 2*timeout + LeaseMargin }

// run claims and pushes due deliveries until ctx is done. It then lets
// the attempts in flight finish and hand over their outcomes, releases
// the deliveries still waiting for a sender, and returns.
func (w *worker) run(ctx context.Context, claimers int) {
	var loops sync.WaitGroup
	for i := range claimers {
		loops.Go(func() { w.claimLoop(ctx, i == 0) })
	}
	for range w.concurrency {
		loops.Go(func() { w.sendLoop(ctx) })
	}
	loops.Wait()
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.releaseReady()
}

// claimLoop claims due deliveries for the senders while the worker has
// room for them, until ctx is done. Only the first claimer looks at once
// and polls an idle destination; the others start asleep and, once a
// claim finds the queue idle, sleep until a full claim, an outcome or
// Wake says there is more (see claimWaiter.idle), so that an idle
// destination is looked at by one claim at a time.
func (w *worker) claimLoop(ctx context.Context, first bool) {
	if !first {
		w.sleep(ctx, w.engine.poll)
	}
	for ctx.Err() == nil {
		n := w.reserve(ctx)
		if n == 0 {
			return
		}
		if w.limiter != nil {
			// Claim no more than the limiter lets start soon: tokens are
			// taken as sends start, by the deliveries already queued.
			avail := w.startable() - len(w.ready)
			if avail < 1 {
				w.endClaim(n)
				w.sleep(ctx, max(time.Millisecond, time.Duration(float64(time.Second)/float64(w.limiter.Limit()))))
				continue
			}
			if avail < n {
				w.giveBack(n - avail)
				n = avail
			}
		}
		claimedAt := w.engine.now()
		claims, err := w.claim(ctx, n, claimedAt)
		for _, c := range claims {
			w.ready <- queued{Claim: c} // never blocks: the room was reserved
		}
		w.endClaim(n - len(claims))
		if err == nil && len(claims) < n {
			w.catchUp()
		}
		w.engine.metrics.leased(w.name, leasedByClaim, len(claims))
		switch {
		case err != nil:
			w.sleep(ctx, w.engine.poll)
		case len(claims) == n:
			w.wakeUp() // more may be due: let another claimer look too
		default:
			w.idle(ctx, claimedAt, first)
			if len(claims) > 0 {
				w.pace(ctx, claimedAt)
			}
		}
	}
}

// rateLookahead is how far ahead a rate-limited worker claims.
const rateLookahead = 100 * time.Millisecond

// startable is how many deliveries the worker's limiter lets start within
// rateLookahead: the tokens it holds and those it adds meanwhile. Its
// tokens alone would cap every claim at the limiter's burst, less what is
// queued, so that a fast rate was claimed a few deliveries at a time while
// the senders waited for the next claim; a slow rate is still never
// claimed far ahead of its sends, whose leases would run while they waited.
func (w *worker) startable() int {
	return int(w.limiter.Tokens() + float64(w.limiter.Limit())*rateLookahead.Seconds())
}

// claimGap is the least time between the starts of two claims of one
// claimer while new deliveries keep arriving.
const claimGap = 4 * time.Millisecond

// pace waits, whatever wakes it, until claimGap has passed since the claim
// at claimedAt, which found some deliveries but fewer than it asked for.
// Under a steady stream of new events every ingest commit wakes the
// claimers, and a claim per wake takes a handful of deliveries at the full
// cost of a claim; gathering a few commits into one claim costs the store
// far less per delivery, and delays a delivery under load by at most
// claimGap. After a claim that found nothing, as on an idle relay, the next
// one is not held back.
func (w *worker) pace(ctx context.Context, claimedAt time.Time) {
	pause(ctx, claimGap-w.engine.now().Sub(claimedAt), nil)
}

// reserve begins a claim and takes its room: a full batch (see claimShape)
// once the window has room for it, so that a busy worker's claimers claim
// side by side, each a full batch, while its senders work through the last
// one; or what room there is when the senders have nothing queued and no
// claim is under way, so that a claim neither waits while senders idle nor
// is split into small ones running together. It waits for room, and
// returns 0 once ctx is done; endClaim ends what it began.
func (w *worker) reserve(ctx context.Context) int {
	for {
		batch, window := w.claimShape()
		w.mu.Lock()
		n := min(window-w.held, batch)
		if n == batch || n > 0 && len(w.ready) == 0 && w.claiming == 0 {
			w.held += n
			w.claiming++
			w.mu.Unlock()
			return n
		}
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return 0
		case <-w.freed:
		}
	}
}

// endClaim ends a claim that reserve began, giving back the room for
// unused deliveries that it did not fill.
func (w *worker) endClaim(unused int) {
	w.mu.Lock()
	w.claiming--
	w.held -= unused
	w.mu.Unlock()
	w.signalFreed()
}

// giveBack returns room for n deliveries: claimed ones whose push ended
// or which were released, or room the limiter did not let a claim use.
func (w *worker) giveBack(n int) {
	w.mu.Lock()
	w.held -= n
	w.mu.Unlock()
	w.signalFreed()
}

func (w *worker) signalFreed() {
	select {
	case w.freed <- struct{}{}:
	default:
	}
}

// claim leases up to n due deliveries. Its failures are logged when they
// begin and when they end, not at every poll.
func (w *worker) claim(ctx context.Context, n int, now time.Time) ([]store.Claim, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimTimeout)
	defer cancel()
	claims, err := w.queue.ClaimDeliveries(cctx, store.ClaimRequest{
		Destination: w.name, Max: n, Lease: w.lease, Now: now, MaxAttempts: w.policy.MaxAttempts,
	})
	claims = w.engine.claimedOrBuried(w.name, claims)
	switch {
	case err != nil && !w.failing.Swap(true):
		w.engine.logger.Warn("claim deliveries failed; retrying at every poll", keyDestination, w.name, keyError, err)
	case err == nil && w.failing.Swap(false):
		w.engine.logger.Info("claim deliveries recovered", keyDestination, w.name)
	}
	return claims, err
}

// sendLoop pushes queued deliveries one at a time until ctx is done. A
// push, once started, runs to its timeout even while the engine stops.
func (w *worker) sendLoop(ctx context.Context) {
	for ctx.Err() == nil {
		var q queued
		select {
		case <-ctx.Done():
			return
		case q = <-w.ready:
		}
		if q.atIngest {
			w.leaveIngestShare(1)
		}
		c := q.Claim
		if w.limiter != nil {
			if err := w.limiter.Wait(ctx); err != nil {
				w.release(c)
				return
			}
		}
		// The lease must outlast the attempt and the recording of its
		// outcome; only a long wait for the rate limiter, or behind pushes
		// slower than their timeout allows, can shorten it that far, and
		// then the delivery goes back to the queue.
		if c.Delivery.LeaseUntil.Sub(w.engine.now()) < w.sender.timeout+LeaseMargin/2 {
			w.engine.logger.Warn("delivery released: its lease ran short while it waited", keyDestination, w.name, keyDeliveryID, c.Delivery.ID)
			w.release(c)
			continue
		}
		w.deliver(c, nil)
	}
}

// releaseReady hands back the deliveries no sender took.
func (w *worker) releaseReady() {
	var (
		cs       []store.Claim
		atIngest int
	)
	for {
		select {
		case q := <-w.ready:
			cs = append(cs, q.Claim)
			if q.atIngest {
				atIngest++
			}
		default:
			w.leaveIngestShare(atIngest)
			w.release(cs...)
			return
		}
	}
}

// release hands claimed deliveries back to the queue unattempted; one it
// cannot hand back is claimed again when its lease runs out.
func (w *worker) release(cs ...store.Claim) {
	if len(cs) == 0 {
		return
	}
	if err := releaseClaims(w.queue, cs); err != nil {
		w.engine.logger.Warn("release deliveries failed; they are claimed again when their lease runs out",
			keyDestination, w.name, "count", len(cs), keyError, err)
	}
	w.giveBack(len(cs))
}

// releaseClaims hands claimed deliveries back to q unattempted, within
// releaseTimeout whatever the caller's state.
func releaseClaims(q store.Queue, cs []store.Claim) error {
	rs := make([]store.Release, len(cs))
	for i, c := range cs {
		rs[i] = store.Release{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken,
			Deferred: c.Deferred, EventID: c.Delivery.EventID, Destination: c.Delivery.Destination}
	}
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	return q.ReleaseDeliveries(ctx, rs)
}
