package delivery

import (
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Watcher is told of the failures the engine and the Puller record, once
// they are committed, by the process that recorded them: every attempt
// recorded as failed, and every delivery that went dead. It is called on
// the paths that record outcomes, so its methods must return at once
// (queue what they are given, or drop it).
type Watcher interface {
	// AttemptFailed is told of an attempt a push, a handler or a pull
	// consumer made and that was recorded as failed: retried later, or,
	// the last one, leaving the delivery dead (then Dead is told too). An
	// attempt found lost when its lease ran out is not: no process saw it
	// fail, and the claim that finds it records it.
	AttemptFailed(FailedAttempt)
	// Dead is told of each delivery that went dead, as its alert
	// describes it, whatever the kind of its destination and however it
	// died: attempts run out, a permanent failure, or a lost attempt
	// that was its last.
	Dead(Alert)
}

// FailedAttempt is one attempt recorded as failed.
type FailedAttempt struct {
	DeliveryID      int64
	EventID         string
	ProviderEventID string
	Source          string
	Type            string
	Destination     string
	// Attempt counts the delivery's attempts, this one included.
	Attempt int
	// Error and StatusCode are what the attempt recorded: the error's
	// text, and the response's status code (0 when none came, and for a
	// handler).
	Error      string
	StatusCode int
	// Dead tells whether the attempt left the delivery dead; otherwise it
	// is tried again at NextAttemptAt.
	Dead          bool
	NextAttemptAt time.Time
}

// failedAttemptOf describes the failed attempt comp records, of delivery
// d of event e; e may be empty when it could not be read.
func failedAttemptOf(e store.Event, d store.Delivery, comp store.Completion) FailedAttempt {
	return FailedAttempt{
		DeliveryID: d.ID, EventID: d.EventID, ProviderEventID: e.ProviderEventID, Source: e.Source, Type: e.Type,
		Destination: d.Destination, Attempt: d.Attempts, Error: comp.Attempt.Error, StatusCode: comp.Attempt.StatusCode,
		Dead: comp.Status == store.StatusDead, NextAttemptAt: comp.NextAttemptAt,
	}
}

// attemptFailed tells the engine's watcher, if any, of the failed attempt
// comp records, of claim c.
func (e *Engine) attemptFailed(c store.Claim, comp store.Completion) {
	if e.watch != nil {
		e.watch.AttemptFailed(failedAttemptOf(c.Event, c.Delivery, comp))
	}
}
