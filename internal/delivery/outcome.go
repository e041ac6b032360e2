package delivery

import (
	"context"
	"errors"
	"log/slog"

	"github.com/hookrelay/hookrelay/internal/store"
)

// deliver makes one push of c and hands its outcome to the engine's
// outcome committer, without waiting for it to be written. The worker gets
// its room back as the push ends; once the outcome is written (or found
// lost), done, when not nil, is called. The push is not tied to the
// engine's context: once started, it runs to its timeout and its outcome
// is recorded even while the engine stops.
func (w *worker) deliver(c store.Claim, done func()) {
	d := c.Delivery
	res := w.sender.Send(context.Background(), c.Event, d)
	w.speed.note(res.Duration)
	w.engine.metrics.attempted(w.name, res.Duration)

	now := w.engine.now()
	comp := store.Completion{
		DeliveryID:  d.ID,
		Deferred:    c.Deferred,
		Destination: d.Destination,
		EventID:     d.EventID,
		LeaseToken:  c.LeaseToken,
		Status:      res.Outcome,
		Attempt:     res.Attempt(d.ID),
		Now:         now,
	}
	if res.Outcome == store.StatusFailed {
		comp.Status, comp.NextAttemptAt = w.policy.Decide(d.Attempts, res.RetryAfter, now)
	}
	w.giveBack(1)
	recorded := func(err error) {
		w.recorded(c, res, comp, err)
		if done != nil {
			done()
		}
	}
	record := w.engine.outcomes.Record
	if d.OrderingKey != "" {
		record = w.engine.outcomes.RecordNow // the key's next delivery waits for it
	}
	if err := record(comp, recorded); err != nil {
		recorded(err)
	}
}

// recorded reports the outcome of one push once the committer has
// written it, or failed to: logs, metrics and the dead letter. An outcome
// that may let another delivery be claimed — a key's head finished, a
// retry scheduled — wakes the claimers.
func (w *worker) recorded(c store.Claim, res Result, comp store.Completion, err error) {
	d := c.Delivery
	switch {
	case errors.Is(err, store.ErrLeaseLost):
		w.engine.logger.Warn("delivery outcome dropped: lease lost", keyDestination, w.name, keyDeliveryID, d.ID,
			keyEventID, d.EventID, keyAttempts, d.Attempts, keyStatus, comp.Status)
		return
	case err != nil:
		w.engine.logger.Error("record delivery outcome failed; the delivery is tried again when its lease runs out",
			keyDestination, w.name, keyDeliveryID, d.ID, keyEventID, d.EventID, keyAttempts, d.Attempts,
			keyStatus, comp.Status, keyError, err)
		return
	}
	if d.OrderingKey != "" || comp.Status == store.StatusFailed {
		w.wakeUp()
	}
	w.engine.metrics.recorded(w.name, comp.Status)
	switch comp.Status {
	case store.StatusDead:
		w.engine.attemptFailed(c, comp)
		w.engine.deadLetter(c, res)
	case store.StatusFailed:
		w.engine.attemptFailed(c, comp)
		w.engine.logger.Info("delivery attempt failed", keyDestination, w.name, keyDeliveryID, d.ID,
			keyEventID, d.EventID, keyAttempts, d.Attempts, keyStatusCode, res.StatusCode, keyError, res.Error,
			"next_attempt_at", comp.NextAttemptAt)
	default:
		if !w.engine.logger.Enabled(context.Background(), slog.LevelDebug) {
			return // spare building the attributes of every success
		}
		w.engine.logger.Debug("delivered", keyDestination, w.name, keyDeliveryID, d.ID, keyEventID, d.EventID,
			keyAttempts, d.Attempts, keyStatus, comp.Status, keyStatusCode, res.StatusCode,
			keyDurationMS, float64(res.Duration.Microseconds())/1000)
	}
}
