package postgres

import "time"

// Times are stored as timestamptz, to the microsecond, and returned in UTC.

// fromNullTime reads NULL as the zero time, and any time in UTC.
func fromNullTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
