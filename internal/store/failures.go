package store

import (
	"context"
	"time"

	"github.com/hookrelay/hookrelay/internal/failure"
)

// FailuresRequest asks for the live failures, grouped.
type FailuresRequest struct {
	// Destination, when set, limits the groups to that destination's.
	Destination string
}

// FailureGroup is the deliveries of one destination, all failed or all
// dead, whose last attempts failed the same way (failure.Classify of
// their last status code and last error).
type FailureGroup struct {
	Destination string
	// Status is StatusFailed or StatusDead.
	Status DeliveryStatus
	Kind   failure.Kind
	Count  int64
	// FirstSeen and LastSeen are the earliest and the latest of the
	// deliveries' last changes: a failed one's last attempt, a dead one's
	// death.
	FirstSeen, LastSeen time.Time
	// ReceivedSince and ReceivedUntil bound the receive times of the
	// deliveries' events, read from their ids (see Event.ID): every one
	// was received in [ReceivedSince, ReceivedUntil), a window that
	// replays the group (with Destination and Status) and what else
	// failed in it. Zero when an id is not of that form.
	ReceivedSince, ReceivedUntil time.Time
	// ExampleEventID is the newest event of the group, and ExampleError
	// and ExampleStatusCode what its delivery's last attempt recorded.
	ExampleEventID    string
	ExampleError      string
	ExampleStatusCode int
}

// Failures groups the failures that need an operator.
type Failures interface {
	// Failures returns the failed and dead deliveries grouped by
	// destination, status and kind, ordered so: each group with its
	// count, when it was first and last seen, the window of its events,
	// and an example. It reads counts kept by group as deliveries change
	// state, and each group's times and example from the ends of its
	// ranges in indexes of the failed and dead deliveries, so that its
	// cost follows the number of groups, not of failures nor of the
	// finished deliveries. A delivery's kind is fixed when its outcome is
	// recorded. It returns an error wrapping ErrUnavailable when the
	// database cannot be read.
	Failures(ctx context.Context, req FailuresRequest) ([]FailureGroup, error)
}
