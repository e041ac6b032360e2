package postgres

import (
	"time"

	"github.com/oklog/ulid/v2"
)

// Event ids are ULIDs whose time is the receive time to the millisecond
// (ulid.Timestamp truncates), so that the ids of the events received in
// [since, until) lie in [idFrom(since), idBefore(until)): a window on
// received_at is also a range of the primary key and of the (source, id)
// indexes.

// idFrom returns the smallest id of since's millisecond: every event
// received at or after since has an id at least this one. ok is false for
// a time before the Unix epoch or past the ULID range, which bounds
// nothing.
func idFrom(since time.Time) (id string, ok bool) {
	if since.Before(time.Unix(0, 0)) {
		return "", false
	}
	return zeroULID(ulid.Timestamp(since))
}

// idBefore returns the smallest id of the first millisecond that starts at
// or after until: every event received before until has a smaller id,
// since its millisecond starts before until.
func idBefore(until time.Time) (id string, ok bool) {
	if until.Before(time.Unix(0, 0)) {
		return "", false
	}
	ms := ulid.Timestamp(until)
	if ulid.Time(ms).Before(until) {
		ms++ // until is within millisecond ms, which may hold earlier events
	}
	return zeroULID(ms)
}

// zeroULID returns the ULID of millisecond ms with zero entropy.
func zeroULID(ms uint64) (string, bool) {
	id, err := ulid.New(ms, nil)
	if err != nil {
		return "", false
	}
	return id.String(), true
}
