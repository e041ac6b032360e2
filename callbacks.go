package hookrelay

import (
	"time"

	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/relay"
)

// CallbackQueueSize bounds the calls of OnDead and OnAttemptFailed waiting
// to be made; a call that finds the queue full is dropped, counted by
// hookrelay_callbacks_dropped_total and logged.
const CallbackQueueSize = 1024

// DeliveryRef says which delivery, of which event, OnDead and
// OnAttemptFailed are told of. It never carries the payload.
type DeliveryRef struct {
	DeliveryID  int64
	Destination string
	// EventID is hookrelay's id of the event; RetryDead, given it with
	// Destination, retries a dead letter.
	EventID         string
	ProviderEventID string
	Source          string
	Type            string
}

// DeadLetter is a delivery that went dead, as Config.OnDead is told of
// it: which, and why.
type DeadLetter struct {
	DeliveryRef
	// Attempts counts the delivery's attempts, the last included.
	Attempts int
	// LastError and LastStatusCode are what its last attempt recorded
	// (the status code of a push's answer; 0 when none came, and for a
	// handler). An attempt whose process died records
	// "worker lost: lease expired while the attempt ran".
	LastError      string
	LastStatusCode int
}

// FailedAttempt is an attempt recorded as failed, as
// Config.OnAttemptFailed is told of it.
type FailedAttempt struct {
	DeliveryRef
	// Attempt counts the delivery's attempts, this one included.
	Attempt int
	// Error and StatusCode are what the attempt recorded: the handler's
	// or the push's error, and a push's status code (0 when no answer
	// came, and for a handler).
	Error      string
	StatusCode int
	// Dead tells whether it was the delivery's last attempt (OnDead is
	// then told of the delivery too); otherwise the delivery is tried
	// again at NextAttemptAt.
	Dead          bool
	NextAttemptAt time.Time
}

// embedding returns what the Relay's Config sets of the relay it runs:
// its callbacks, its metrics' registerer and its console.
func (r *Relay) embedding() relay.Embedding {
	e := relay.Embedding{Registerer: r.cfg.Registerer, NoConsole: r.cfg.DisableConsole}
	e.Callbacks.QueueSize = CallbackQueueSize
	if f := r.cfg.OnDead; f != nil {
		e.Callbacks.Dead = func(a delivery.Alert) {
			f(DeadLetter{
				DeliveryRef: DeliveryRef{a.DeliveryID, a.Destination, a.EventID, a.ProviderEventID, a.Source, a.Type},
				Attempts:    a.Attempts, LastError: a.LastError, LastStatusCode: a.LastStatusCode,
			})
		}
	}
	if f := r.cfg.OnAttemptFailed; f != nil {
		e.Callbacks.AttemptFailed = func(a delivery.FailedAttempt) {
			f(FailedAttempt{
				DeliveryRef: DeliveryRef{a.DeliveryID, a.Destination, a.EventID, a.ProviderEventID, a.Source, a.Type},
				Attempt:     a.Attempt, Error: a.Error, StatusCode: a.StatusCode, Dead: a.Dead, NextAttemptAt: a.NextAttemptAt,
			})
		}
	}
	return e
}
