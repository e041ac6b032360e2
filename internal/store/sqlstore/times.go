package sqlstore

import (
	"database/sql"
	"fmt"
	"time"
)

// At returns a scan destination for a stored time, however the driver
// stores it: INTEGER unix microseconds (SQLite) or a timestamp
// (PostgreSQL). NULL reads as the zero time; every time reads as UTC.
func At(t *time.Time) sql.Scanner { return timeDest{t} }

type timeDest struct{ t *time.Time }

// Scan implements sql.Scanner.
func (d timeDest) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*d.t = time.Time{}
	case int64:
		*d.t = time.UnixMicro(v).UTC()
	case time.Time:
		*d.t = v.UTC()
	default:
		return fmt.Errorf("scan time: unexpected %T", v)
	}
	return nil
}

// NullTime returns t as the driver stores a time, and the zero time as
// NULL.
func (d Dialect) NullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return d.Time(t)
}
