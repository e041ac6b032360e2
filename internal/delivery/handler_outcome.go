package delivery

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// failed records a handler's failed attempt — its transaction already
// rolled back — with the destination's backoff, or dead once its attempts
// have run out or when cause is a PermanentError. When even that cannot be
// recorded, the delivery is tried again when its lease runs out.
func (h *handlerWorker) failed(c store.Claim, cause error, start time.Time, took time.Duration) {
	d := c.Delivery
	now := h.engine.now()
	comp := store.Completion{
		DeliveryID: d.ID, EventID: d.EventID, LeaseToken: c.LeaseToken, Now: now,
		Attempt: store.Attempt{AttemptedAt: start, Duration: took, Error: ShortError(cause.Error())},
	}
	comp.Status, comp.NextAttemptAt = h.policy.DecideHandler(cause, d.Attempts, now)
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	err := h.queue.CompleteDelivery(ctx, comp)
	switch {
	case errors.Is(err, store.ErrLeaseLost):
		h.engine.logger.Warn("handler outcome dropped: lease lost", keyDestination, h.name, keyDeliveryID, d.ID,
			keyEventID, d.EventID, keyAttempts, d.Attempts, keyStatus, comp.Status)
		return
	case err != nil:
		h.engine.logger.Error("record handler failure failed; the delivery is tried again when its lease runs out",
			keyDestination, h.name, keyDeliveryID, d.ID, keyEventID, d.EventID, keyAttempts, d.Attempts,
			keyError, err)
		return
	}
	h.wakeUp()
	h.engine.metrics.recorded(h.name, comp.Status)
	h.engine.attemptFailed(c, comp)
	if comp.Status == store.StatusDead {
		h.engine.deadLetter(c, Result{Outcome: store.StatusFailed, Error: comp.Attempt.Error, AttemptedAt: start, Duration: took})
		return
	}
	h.engine.logger.Info("handler attempt failed", keyDestination, h.name, keyDeliveryID, d.ID,
		keyEventID, d.EventID, keyAttempts, d.Attempts, keyError, comp.Attempt.Error,
		"next_attempt_at", comp.NextAttemptAt)
}

// recorded reports a handler's committed outcome: the metric, a debug log
// line, and a wake when the delivery held an ordering key, whose next
// delivery may now be claimed.
func (h *handlerWorker) recorded(c store.Claim, status store.DeliveryStatus, took time.Duration) {
	d := c.Delivery
	h.engine.metrics.recorded(h.name, status)
	if d.OrderingKey != "" {
		h.wakeUp()
	}
	if !h.engine.logger.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	h.engine.logger.Debug("handled", keyDestination, h.name, keyDeliveryID, d.ID, keyEventID, d.EventID,
		keyAttempts, d.Attempts, keyStatus, status, keyDurationMS, float64(took.Microseconds())/1000)
}

// snoozed hands back a delivery whose handler asked for a snooze — its
// transaction already rolled back — due after the snooze, its attempt not
// counted. When that cannot be recorded, the delivery is found lost when
// its lease runs out, and that attempt then counts.
func (h *handlerWorker) snoozed(c store.Claim, after time.Duration) {
	d := c.Delivery
	now := h.engine.now()
	until := now.Add(after)
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	err := h.queue.SnoozeDelivery(ctx, store.Snooze{DeliveryID: d.ID, LeaseToken: c.LeaseToken, Until: until, Now: now})
	switch {
	case errors.Is(err, store.ErrLeaseLost):
		h.engine.logger.Warn("handler snooze dropped: lease lost", keyDestination, h.name, keyDeliveryID, d.ID,
			keyEventID, d.EventID, keyAttempts, d.Attempts)
	case err != nil:
		h.engine.logger.Error("record handler snooze failed; the delivery is tried again when its lease runs out",
			keyDestination, h.name, keyDeliveryID, d.ID, keyEventID, d.EventID, keyError, err)
	default:
		h.engine.logger.Info("handler snoozed", keyDestination, h.name, keyDeliveryID, d.ID, keyEventID, d.EventID,
			keyAttempts, d.Attempts-1, "next_attempt_at", until)
	}
}
