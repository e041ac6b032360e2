package sqlstore

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// ScanTimestamptz implements pgtype.TimestamptzScanner, which pgx prefers
// to sql.Scanner: a timestamptz then reaches At's destination as it is
// decoded, not boxed as a driver value, which costs three allocations a
// time read. NULL reads as the zero time; every time reads as UTC.
func (d timeDest) ScanTimestamptz(v pgtype.Timestamptz) error {
	switch {
	case !v.Valid:
		*d.t = time.Time{}
	case v.InfinityModifier != pgtype.Finite:
		return fmt.Errorf("scan time: infinite timestamp")
	default:
		*d.t = v.Time.UTC()
	}
	return nil
}
