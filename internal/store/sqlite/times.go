package sqlite

import (
	"database/sql"
	"time"
)

// Times are stored as INTEGER unix microseconds and returned in UTC.

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// nullMicros stores the zero time as NULL.
func nullMicros(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// fromNullMicros reads NULL as the zero time.
func fromNullMicros(us sql.NullInt64) time.Time {
	if !us.Valid {
		return time.Time{}
	}
	return fromMicros(us.Int64)
}

// optMicros stores a nil time as NULL.
func optMicros(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMicro()
}
