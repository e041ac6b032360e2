package hookrelaytest

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Outcome is what a Relay records for a delivery once its handler has
// returned; its text is the delivery's status as listings show it, or
// "snoozed".
type Outcome string

// The outcomes, by what the handler returned (see hookrelay.HandlerFunc).
const (
	// Done: it returned nil; its writes are committed.
	Done Outcome = "done"
	// Skipped: it returned an error wrapping hookrelay.Skip; its writes
	// are committed.
	Skipped Outcome = "skipped"
	// Failed: it returned another error, or panicked, or ended its
	// transaction; its writes are rolled back, and the event is handled
	// again after the destination's backoff.
	Failed Outcome = "failed"
	// Dead: it returned hookrelay.Permanent, or failed on the
	// destination's last attempt; its writes are rolled back, and the
	// delivery is a dead letter.
	Dead Outcome = "dead"
	// Snoozed: it returned hookrelay.Snooze; its writes are rolled back,
	// and the event is handled again after the snooze, not counted as an
	// attempt.
	Snoozed Outcome = "snoozed"
)

// Result is what running a handler once came to.
type Result struct {
	// Outcome is what the relay would record.
	Outcome Outcome
	// Err is what the handler returned: nil when it is Done. A panic is
	// the error the relay records for it ("handler panicked: …"); a
	// handler that ended its transaction fails with an error wrapping
	// hookrelay.ErrManagedTx, and one whose transaction could not commit
	// with the commit's error.
	Err error
	// SnoozedFor is how long a Snoozed event waits to be handled again.
	SnoozedFor time.Duration
	// RetryIn is how long a Failed event waits for its next attempt: the
	// destination's backoff step for this attempt, spread by the jitter
	// the relay applies.
	RetryIn time.Duration
}

// Handler runs a HandlerFunc as a Relay runs the one declared with
// Relay.Handle for its Destination.
type Handler struct {
	db     DB
	dest   hookrelay.Destination
	fn     hookrelay.HandlerFunc
	policy delivery.Policy
	limit  time.Duration
}

// NewHandler returns the Handler that runs fn, declared for d, inside
// transactions of db. d's name, MaxAttempts, Backoff and Timeout are
// used, their zero values meaning the defaults of Destination.
func NewHandler(db DB, d hookrelay.Destination, fn hookrelay.HandlerFunc) *Handler {
	if fn == nil {
		panic("hookrelaytest: NewHandler with a nil HandlerFunc")
	}
	cfg := bridge.Destination(d)
	return &Handler{db: db, dest: d, fn: fn, policy: delivery.PolicyFor(cfg), limit: cfg.Timeout.Std()}
}

// Run hands ev to the handler once, inside a new transaction of the
// Handler's DB, as a Relay hands it a delivery: ctx ends at the
// destination's Timeout, the handler's Tx refuses Commit and Rollback, and
// its result decides the outcome and whether its writes commit or roll
// back. ev.Destination is set to the destination's name, and an
// ev.Attempt of zero counts as the first attempt; on the destination's
// last attempt (ev.Attempt = MaxAttempts) a failure is Dead.
//
// Run returns an error only when it cannot begin the transaction; what
// the handler did, and a commit that failed, is in the Result.
func (h *Handler) Run(ctx context.Context, ev hookrelay.Event) (Result, error) {
	ev.Destination = h.dest.Name
	ev.Attempt = max(ev.Attempt, 1)
	ctx, cancel := context.WithTimeout(ctx, h.limit)
	defer cancel()
	tx, err := h.db.begin(ctx)
	if err != nil {
		return Result{}, err
	}
	err = delivery.CallHandler(func() error {
		return bridge.Guard(ctx, tx.tx, func(tx hookrelay.Tx) error { return h.fn(ctx, tx, ev) })
	}, nil)
	verdict, snooze := delivery.HandlerVerdictOf(err)
	if !verdict.Commits() {
		_ = tx.rollback(context.WithoutCancel(ctx)) // as the relay's: the transaction may be over already
	} else if cerr := tx.commit(ctx); cerr != nil {
		err, verdict = fmt.Errorf("commit: %w", cerr), delivery.HandlerFail
	}
	switch verdict {
	case delivery.HandlerDone:
		return Result{Outcome: Done}, nil
	case delivery.HandlerSkip:
		return Result{Outcome: Skipped, Err: err}, nil
	case delivery.HandlerSnooze:
		return Result{Outcome: Snoozed, Err: err, SnoozedFor: snooze}, nil
	}
	now := time.Now()
	status, next := h.policy.DecideHandler(err, ev.Attempt, now)
	res := Result{Outcome: Outcome(status), Err: err}
	if status == store.StatusFailed {
		res.RetryIn = next.Sub(now)
	}
	return res, nil
}
