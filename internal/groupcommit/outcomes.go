package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Outcomes records the outcomes of delivery attempts in batches, each
// batch one CompleteDeliveries call. It is safe for concurrent use.
//
// An outcome is not durable until its callback is called without error;
// one lost before that — a crash, a failed batch — leaves its delivery
// processing until its lease runs out, when it is claimed and delivered
// again. An outcome is therefore never lost, at worst repeated.
type Outcomes struct {
	b *Batcher[store.Completion, bool]
}

// NewOutcomes starts recording outcomes in q. A batch that finds the store
// unavailable is tried again, with growing pauses, for up to
// opts.CommitTimeout (default 10s). Call Close to stop it.
func NewOutcomes(q store.Queue, opts Options, logger *slog.Logger) *Outcomes {
	write := func(ctx context.Context, cs []store.Completion) ([]bool, error) {
		return retryUnavailable(ctx, func() ([]bool, error) { return q.CompleteDeliveries(ctx, cs) })
	}
	return &Outcomes{b: NewBatcher(write, nil, opts, logger)}
}

// Record queues c and returns without waiting for it to be written. done
// is called, from a committer, once the outcome is committed (nil), its
// lease was found lost (an error wrapping store.ErrLeaseLost), or it
// could not be recorded; it must not block. Its batch may wait up to
// Options.Linger for company. Record waits while the queue is full, and
// returns ErrClosed after Close, when done is never called.
func (o *Outcomes) Record(c store.Completion, done func(error)) error {
	return o.b.Submit(c, o.answer(c, done))
}

// RecordNow queues c as Record does, for an outcome something waits on —
// the head of an ordering key, whose next delivery is claimable only once
// it is committed: its batch is written without lingering.
func (o *Outcomes) RecordNow(c store.Completion, done func(error)) error {
	return o.b.SubmitNow(c, o.answer(c, done))
}

// answer turns the committer's result for c into done's error.
func (o *Outcomes) answer(c store.Completion, done func(error)) func(bool, error) {
	return func(recorded bool, err error) {
		if err == nil && !recorded {
			err = fmt.Errorf("complete delivery %d: %w", c.DeliveryID, store.ErrLeaseLost)
		}
		done(err)
	}
}

// Close stops accepting outcomes, writes everything already queued and
// returns once every callback has been called.
func (o *Outcomes) Close() { o.b.Close() }

// retryUnavailable calls f until it returns something other than
// store.ErrUnavailable, pausing between calls, until ctx is done.
func retryUnavailable[R any](ctx context.Context, f func() (R, error)) (R, error) {
	delay := 50 * time.Millisecond
	for {
		res, err := f()
		if err == nil || !errors.Is(err, store.ErrUnavailable) {
			return res, err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return res, err
		case <-t.C:
		}
		delay = min(2*delay, 2*time.Second)
	}
}
