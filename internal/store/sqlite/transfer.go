package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"
)

// TableCounts returns how many rows each table a copy moves holds, as the
// operations written once for both drivers count them (sqlstore.Ops), once
// the rows of every deferred delivery not yet swept are written
// (store.Lease.Deferred): a copy's source is a stopped relay, whose
// deliveries leased at ingest and not finished have rows only once
// written, leased as ingest leased them, to be claimed again on the
// target once the lease has run out, as after a crash.
func (s *Store) TableCounts(ctx context.Context) (map[string]int64, error) {
	if err := s.sweepAll(ctx); err != nil {
		return nil, fmt.Errorf("count tables: write deferred deliveries: %w", mapErr(ctx, err))
	}
	return s.Ops.TableCounts(ctx)
}

// sweepAll writes the rows of every deferred delivery not yet swept, in
// one transaction.
func (s *Store) sweepAll(ctx context.Context) error {
	release, err := s.enter()
	if err != nil {
		return err
	}
	defer release()
	return s.inWriteTx(ctx, func(tx *sql.Tx, st *writeStmts) error {
		_, err := sweepLeases(ctx, tx, st, time.UnixMicro(math.MaxInt64), time.Now(), math.MaxInt32)
		return err
	})
}
