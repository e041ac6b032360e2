package store

import (
	"context"
	"time"
)

// RejectionCount is how many requests of one source the receivers rejected
// for one reason in the interval that starts at At.
type RejectionCount struct {
	Source string
	Reason string
	At     time.Time
	N      int64
}

// FleetAlerts is the alert state the processes sharing a database keep in
// it: what every receiver rejected, counted together, and which alerts were
// raised, so that a rule evaluated by one process judges the fleet's total
// and raises its alert once for the fleet.
type FleetAlerts interface {
	// CountRejections adds each count to the total of its source, reason
	// and interval, which every process adds to. It returns an error
	// wrapping ErrUnavailable when the database cannot be written; then
	// nothing was added.
	CountRejections(ctx context.Context, counts []RejectionCount) error

	// RejectionsSince returns, for each source and reason, the total of
	// the intervals that start at or after since, ordered by source then
	// reason; At is the start of the earliest of them.
	RejectionsSince(ctx context.Context, since time.Time) ([]RejectionCount, error)

	// DropRejectionCounts deletes the counts of the intervals that start
	// before before, and returns how many rows it deleted.
	DropRejectionCounts(ctx context.Context, before time.Time) (int64, error)

	// MarkAlert records that rule raised its alert about subject at at,
	// unless it did so less than quiet before at, and reports whether it
	// recorded it: true tells the caller to raise the alert. Of any number
	// of calls at once for one rule and subject, at most one records it.
	MarkAlert(ctx context.Context, rule, subject string, at time.Time, quiet time.Duration) (bool, error)
}
