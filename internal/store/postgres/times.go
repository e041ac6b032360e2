package postgres

import "time"

// Times are stored as timestamptz, to the microsecond, and returned in UTC.

// nullTime stores the zero time as NULL.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// fromNullTime reads NULL as the zero time, and any time in UTC.
func fromNullTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
