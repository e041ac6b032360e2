package sqlstore

import (
	"time"

	"github.com/oklog/ulid/v2"
)

// Event ids are ULIDs whose time is the receive time to the millisecond
// (ulid.Timestamp truncates), so that the ids of the events received in
// [since, until) lie in [IDFrom(since), IDBefore(until)): a window on
// received_at is also a range of the primary key and of the (source, id)
// indexes.

// AboveEveryID is above every event id, bytewise: the upper bound of a
// range of ids with none.
const AboveEveryID = "\U0010FFFF"

// IDFrom returns the smallest id of since's millisecond: every event
// received at or after since has an id at least this one. ok is false for
// a time before the Unix epoch or past the ULID range, which bounds
// nothing.
func IDFrom(since time.Time) (id string, ok bool) {
	if since.Before(time.Unix(0, 0)) {
		return "", false
	}
	return zeroULID(ulid.Timestamp(since))
}

// IDBefore returns the smallest id of the first millisecond that starts at
// or after until: every event received before until has a smaller id,
// since its millisecond starts before until. ok is false as for IDFrom.
func IDBefore(until time.Time) (id string, ok bool) {
	if until.Before(time.Unix(0, 0)) {
		return "", false
	}
	ms := ulid.Timestamp(until)
	if ulid.Time(ms).Before(until) {
		ms++ // until is within millisecond ms, which may hold earlier events
	}
	return zeroULID(ms)
}

// IDRange returns the range [from, before) that holds the ids of the
// events received in [since, until). A side IDFrom or IDBefore cannot
// bound is open: from is "", below every id, and before is AboveEveryID.
func IDRange(since, until time.Time) (from, before string) {
	from, _ = IDFrom(since) // "" when it bounds nothing
	before, ok := IDBefore(until)
	if !ok {
		before = AboveEveryID
	}
	return from, before
}

// zeroULID returns the ULID of millisecond ms with zero entropy.
func zeroULID(ms uint64) (string, bool) {
	id, err := ulid.New(ms, nil)
	if err != nil {
		return "", false
	}
	return id.String(), true
}
