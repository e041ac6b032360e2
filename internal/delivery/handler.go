package delivery

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Handler handles one delivery of a handler destination inside the
// transaction that records its outcome. tx is the store driver's own
// transaction: a pgx.Tx on PostgreSQL, a *sql.Tx on SQLite. Returning nil
// commits the handler's writes with the delivery marked done; an error
// wrapping ErrSkip commits them with the delivery marked skipped; one
// wrapping a SnoozeError rolls them back and hands the delivery back for
// later, uncounted; one wrapping a PermanentError rolls them back and
// marks it dead; any other error, or a panic, rolls them back and fails
// the attempt, which is then retried on the destination's backoff or goes
// dead.
type Handler func(ctx context.Context, tx any, c store.Claim) error

// ErrSkip, returned by a Handler (wrapped or not), marks the delivery
// skipped: the event was seen and deliberately not acted on.
var ErrSkip = errors.New("hookrelay: skip")

// handlerWorker runs one handler destination: concurrency loops, each
// claiming one delivery at a time and running the handler on it inside
// the store transaction that records its outcome. An idle destination is
// looked at by one loop at a time; a loop that finds work wakes another.
type handlerWorker struct {
	claimWaiter
	within      store.TxCompleter
	handle      Handler
	policy      Policy
	concurrency int
	timeout     time.Duration
	lease       time.Duration
	failing     atomic.Bool // the last claim failed; logged once until one succeeds
}

func newHandlerWorker(e *Engine, q store.Queue, within store.TxCompleter, d config.Destination, h Handler, margin time.Duration) (*handlerWorker, error) {
	if within == nil {
		return nil, errors.New("the store cannot run handlers inside its transactions")
	}
	if h == nil {
		return nil, errors.New("no handler registered")
	}
	// As for a push destination, d's settings are used as the config
	// defaulted and checked them.
	timeout := d.Timeout.Std()
	if timeout <= 0 {
		return nil, fmt.Errorf("timeout %s is not above zero", timeout)
	}
	if d.Concurrency < 1 {
		return nil, fmt.Errorf("concurrency %d is less than 1", d.Concurrency)
	}
	return &handlerWorker{
		claimWaiter: newClaimWaiter(e, q, d.Name),
		within:      within,
		handle:      h,
		policy:      PolicyFor(d),
		concurrency: d.Concurrency,
		timeout:     timeout,
		lease:       timeout + margin,
	}, nil
}

// run handles due deliveries until ctx is done; from then on no handler
// starts, and a handler already running finishes (within the destination's
// timeout, or once the engine's lifetime ends) and its outcome is
// recorded.
func (h *handlerWorker) run(ctx context.Context) {
	var loops sync.WaitGroup
	for i := range h.concurrency {
		loops.Go(func() { h.loop(ctx, i == 0) })
	}
	loops.Wait()
}

func (h *handlerWorker) loop(ctx context.Context, first bool) {
	if !first {
		h.sleep(ctx, h.engine.poll)
	}
	for ctx.Err() == nil {
		now := h.engine.now()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimTimeout)
		claims, err := h.queue.ClaimDeliveries(cctx, store.ClaimRequest{
			Destination: h.name, Max: 1, Lease: h.lease, Now: now, MaxAttempts: h.policy.MaxAttempts,
		})
		cancel()
		claims = h.engine.claimedOrBuried(h.name, claims)
		switch {
		case err != nil && !h.failing.Swap(true):
			h.engine.logger.Warn("claim deliveries failed; retrying at every poll", keyDestination, h.name, keyError, err)
		case err == nil && h.failing.Swap(false):
			h.engine.logger.Info("claim deliveries recovered", keyDestination, h.name)
		}
		if err != nil {
			h.sleep(ctx, h.engine.poll)
			continue
		}
		if len(claims) == 0 {
			h.idle(ctx, now, first)
			continue
		}
		if ctx.Err() != nil { // stopped while it claimed
			h.handBack(claims[0], true)
			return
		}
		h.wakeUp() // more may be due: let another loop look too
		h.deliver(ctx, claims[0])
	}
}

// errStopping is what a handler's transaction returns when the engine
// stopped before the handler could start.
var errStopping = errors.New("delivery engine stopping")

// deliver runs the handler on c inside the transaction that records its
// outcome; when the handler fails, the failure is recorded afterwards, in
// a transaction of its own, as a push's would be. It starts no handler
// once stop is done — the check is made inside the transaction, which on
// SQLite may have waited for the writer meanwhile — and hands c back
// instead; so too when the engine's lifetime ended while the handler ran
// (see Options.Lifetime): the shutdown, not the handler, cut it short.
func (h *handlerWorker) deliver(stop context.Context, c store.Claim) {
	d := c.Delivery
	start := h.engine.now()
	ctx, cancel := context.WithTimeout(h.engine.lifetime, h.timeout)
	defer cancel()
	comp := store.Completion{
		DeliveryID: d.ID, LeaseToken: c.LeaseToken, Status: store.StatusDone,
		Attempt: store.Attempt{AttemptedAt: start},
	}
	status := store.StatusDone
	err := h.within.CompleteWithin(ctx, comp, func(ctx context.Context, tx any, comp *store.Completion) error {
		if stop.Err() != nil {
			return errStopping
		}
		err := h.call(ctx, tx, c)
		comp.Now = h.engine.now()
		comp.Attempt.Duration = comp.Now.Sub(start)
		v, _ := HandlerVerdictOf(err)
		if v == HandlerSkip {
			status, comp.Attempt.Error = store.StatusSkipped, ShortError(err.Error())
		}
		comp.Status = status
		if v.Commits() {
			return nil
		}
		return err
	})
	took := h.engine.now().Sub(start)
	if errors.Is(err, errStopping) || err != nil && h.engine.lifetime.Err() != nil {
		h.handBack(c, errors.Is(err, errStopping))
		return
	}
	if v, after := HandlerVerdictOf(err); v == HandlerSnooze {
		h.snoozed(c, after)
		return
	}
	h.engine.metrics.attempted(h.name, took)
	switch {
	case err == nil:
		h.recorded(c, status, took)
	case errors.Is(err, store.ErrLeaseLost):
		h.engine.logger.Warn("handler outcome dropped: lease lost", keyDestination, h.name, keyDeliveryID, d.ID,
			keyEventID, d.EventID, keyAttempts, d.Attempts)
	default:
		h.failed(c, err, start, took)
	}
}

// handBack returns c to the queue unattempted, due now, as the engine
// stops: before its handler started, or, cut short, once it rolled back.
func (h *handlerWorker) handBack(c store.Claim, unstarted bool) {
	d := c.Delivery
	if err := releaseClaims(h.queue, []store.Claim{c}); err != nil {
		h.engine.logger.Warn("hand back delivery failed; it is claimed again when its lease runs out",
			keyDestination, h.name, keyDeliveryID, d.ID, keyEventID, d.EventID, keyError, err)
		return
	}
	if !unstarted {
		h.engine.logger.Info("handler cancelled by the shutdown; its delivery goes back to the queue",
			keyDestination, h.name, keyDeliveryID, d.ID, keyEventID, d.EventID)
	}
}

// call runs the handler, turning a panic into an error as CallHandler
// does; the stack goes to the log.
func (h *handlerWorker) call(ctx context.Context, tx any, c store.Claim) error {
	return CallHandler(func() error { return h.handle(ctx, tx, c) }, func(p any, stack []byte) {
		h.engine.logger.Error("handler panicked", keyDestination, h.name, keyDeliveryID, c.Delivery.ID,
			keyEventID, c.Delivery.EventID, "panic", fmt.Sprint(p), "stack", string(stack))
	})
}

// CallHandler calls fn and returns its error; when fn panics, it returns
// an error that carries the panic's value instead — the failure a relay
// records — after giving panicked, when not nil, the value and the stack.
func CallHandler(fn func() error, panicked func(value any, stack []byte)) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if panicked != nil {
				panicked(p, debug.Stack())
			}
			err = fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return fn()
}
