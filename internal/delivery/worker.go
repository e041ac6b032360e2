package delivery

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Bounds on the store calls a worker makes.
const (
	// claimTimeout bounds one claim. A claim is not cut short by shutdown:
	// whatever it leased is then attempted rather than left to its lease.
	claimTimeout = 10 * time.Second
	// completeTimeout bounds recording one outcome, retries included; it
	// stays inside LeaseMargin.
	completeTimeout = 20 * time.Second
)

// worker delivers one push destination: one claim loop, its own sender and
// rate limiter. The loop goroutine alone touches inFlight and failing.
type worker struct {
	engine      *Engine
	queue       store.Queue
	name        string
	sender      *Sender
	policy      Policy
	limiter     *rate.Limiter // nil when the destination has no rate
	concurrency int
	lease       time.Duration

	wake     chan struct{} // Wake and nothing else; capacity 1
	finished chan struct{} // one send per finished attempt; capacity concurrency
	attempts sync.WaitGroup

	inFlight int  // attempts started and not yet reaped
	failing  bool // the last claim failed; logged once until it recovers
}

func newWorker(e *Engine, q store.Queue, d config.Destination) (*worker, error) {
	def := config.DefaultDestination()
	if !absoluteHTTP(d.URL) {
		return nil, errors.New("url is not an absolute http(s) URL")
	}
	timeout := d.Timeout.Std()
	if timeout <= 0 {
		timeout = def.Timeout.Std()
	}
	concurrency := d.Concurrency
	if concurrency < 1 {
		concurrency = def.Concurrency
	}
	w := &worker{
		engine:      e,
		queue:       q,
		name:        d.Name,
		sender:      NewSender(Target{URL: d.URL, Secret: d.Secret, ForwardHeaders: d.ForwardHeaders}, timeout, concurrency, e.now),
		policy:      PolicyFor(d),
		concurrency: concurrency,
		lease:       timeout + LeaseMargin,
		wake:        make(chan struct{}, 1),
		finished:    make(chan struct{}, concurrency),
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

func (w *worker) wakeUp() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run claims and attempts due deliveries until ctx is done, then waits for
// the attempts in flight.
func (w *worker) run(ctx context.Context) {
	defer w.attempts.Wait()
	for ctx.Err() == nil {
		w.reap()
		free := w.concurrency - w.inFlight
		if free == 0 {
			w.waitForSlot(ctx)
			continue
		}
		n := free
		if w.limiter != nil {
			tokens := w.limiter.Tokens()
			if tokens < 1 {
				w.sleep(ctx, time.Duration((1-tokens)/float64(w.limiter.Limit())*float64(time.Second)))
				continue
			}
			n = min(n, int(tokens))
		}
		claimedAt := w.engine.now()
		claims, err := w.claim(ctx, n, claimedAt)
		if err != nil {
			w.sleep(ctx, w.engine.poll)
			continue
		}
		if w.limiter != nil && len(claims) > 0 {
			w.limiter.AllowN(time.Now(), len(claims))
		}
		for _, c := range claims {
			w.start(c)
		}
		if len(claims) < n {
			w.sleep(ctx, w.idleWait(ctx, claimedAt))
		}
	}
}

// claim leases up to n due deliveries. Its failures are logged when they
// begin and when they end, not at every poll.
func (w *worker) claim(ctx context.Context, n int, now time.Time) ([]store.Claim, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimTimeout)
	defer cancel()
	claims, err := w.queue.ClaimDeliveries(cctx, store.ClaimRequest{Destination: w.name, Max: n, Lease: w.lease, Now: now})
	switch {
	case err != nil && !w.failing:
		w.failing = true
		w.engine.logger.Warn("claim deliveries failed; retrying at every poll", keyDestination, w.name, keyError, err)
	case err == nil && w.failing:
		w.failing = false
		w.engine.logger.Info("claim deliveries recovered", keyDestination, w.name)
	}
	return claims, err
}

// idleWait returns how long to sleep after a claim at claimedAt found fewer
// deliveries than it asked for: until the next one is due, at most the poll
// interval. A delivery that was already due at the claim yet was not claimed
// waits behind its ordering key or another worker's lease; finished attempts
// and Wake end the sleep sooner, so it is not polled for in a busy loop.
func (w *worker) idleWait(ctx context.Context, claimedAt time.Time) time.Duration {
	at, ok, err := w.queue.NextDue(ctx, w.name)
	if err != nil || !ok || !at.After(claimedAt) {
		return w.engine.poll
	}
	return min(w.engine.poll, at.Sub(w.engine.now()))
}

// sleep waits for d, a finished attempt, Wake or ctx, whichever comes first.
func (w *worker) sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-w.wake:
	case <-w.finished:
		w.inFlight--
	case <-t.C:
	}
}

// waitForSlot waits for an attempt to finish, or for ctx.
func (w *worker) waitForSlot(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-w.finished:
		w.inFlight--
	}
}

// reap counts the attempts that finished since the last look.
func (w *worker) reap() {
	for {
		select {
		case <-w.finished:
			w.inFlight--
		default:
			return
		}
	}
}

// start runs one claimed attempt in its own goroutine.
func (w *worker) start(c store.Claim) {
	w.inFlight++
	w.attempts.Add(1)
	go func() {
		defer w.attempts.Done()
		w.attempt(c)
		w.finished <- struct{}{}
	}()
}

// attempt makes one push and records its outcome. It is not tied to the
// engine's context: once started, an attempt runs to its timeout and its
// outcome is recorded even while the engine stops.
func (w *worker) attempt(c store.Claim) {
	d := c.Delivery
	res := w.sender.Send(context.Background(), c.Event, d)
	w.engine.metrics.attempted(w.name, res.Duration)

	now := w.engine.now()
	comp := store.Completion{
		DeliveryID: d.ID,
		LeaseToken: c.LeaseToken,
		Status:     res.Outcome,
		Attempt:    res.Attempt(d.ID),
		Now:        now,
	}
	if res.Outcome == store.StatusFailed {
		comp.Status, comp.NextAttemptAt = w.policy.Decide(d.Attempts, res.RetryAfter, now)
	}
	log := w.engine.logger.With(keyDestination, w.name, keyDeliveryID, d.ID, keyEventID, d.EventID, keyAttempts, d.Attempts)
	err := w.complete(comp)
	switch {
	case errors.Is(err, store.ErrLeaseLost):
		log.Warn("delivery outcome dropped: lease lost", keyStatus, comp.Status)
		return
	case err != nil:
		log.Error("record delivery outcome failed; the delivery is tried again when its lease runs out",
			keyStatus, comp.Status, keyError, err)
		return
	}
	w.engine.metrics.recorded(w.name, comp.Status)
	switch comp.Status {
	case store.StatusDead:
		w.engine.deadLetter(c, res)
	case store.StatusFailed:
		log.Info("delivery attempt failed", keyStatusCode, res.StatusCode, keyError, res.Error,
			"next_attempt_at", comp.NextAttemptAt)
	default:
		log.Debug("delivered", keyStatus, comp.Status, keyStatusCode, res.StatusCode, keyDurationMS, float64(res.Duration.Microseconds())/1000)
	}
}

// complete records an outcome, trying again while the store is
// unavailable, for at most completeTimeout.
func (w *worker) complete(c store.Completion) error {
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	delay := 50 * time.Millisecond
	for {
		err := w.queue.CompleteDelivery(ctx, c)
		if err == nil || !errors.Is(err, store.ErrUnavailable) {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay = min(2*delay, 2*time.Second)
	}
}
