package store

import (
	"context"
	"time"
)

// ActivityBucket counts one interval of the relay's work.
type ActivityBucket struct {
	// Start is the start of the interval.
	Start time.Time
	// Received counts the events received in it.
	Received int64
	// Delivered and Failed count the delivery attempts made in it that a
	// destination answered with 2xx, and those it did not (another code,
	// a timeout or a connection error).
	Delivered, Failed int64
}

// Activity is the store's side of the console's activity charts.
type Activity interface {
	// Activity returns one bucket per step from since up to until, oldest
	// first, zeros included: the events received (by received_at) and the
	// attempts made (by attempted_at) in [Start, Start+step). It reads
	// counters kept per minute as rows are written, never the events or
	// the attempts, so its cost follows the number of minutes (1 440 for
	// a day), not the traffic; a minute is counted in the bucket its start
	// falls in, so since and step are best whole minutes. Pruning events
	// does not take them out of the counts; Prune deletes the counters of
	// the minutes past the retention. It returns an error wrapping
	// ErrUnavailable when the database cannot be read.
	Activity(ctx context.Context, since, until time.Time, step time.Duration) ([]ActivityBucket, error)
}

// ActivityBuckets returns the empty buckets of [since, until) by step, for
// a driver to fill.
func ActivityBuckets(since, until time.Time, step time.Duration) []ActivityBucket {
	var out []ActivityBucket
	for at := since; at.Before(until); at = at.Add(step) {
		out = append(out, ActivityBucket{Start: at.UTC()})
	}
	return out
}
