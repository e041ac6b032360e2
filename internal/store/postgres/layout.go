package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// selectLayout tells whether the event log is partitioned: events is a
// partitioned table. Before the first migration it is false.
const selectLayout = `SELECT coalesce((SELECT relkind = 'p' FROM pg_class WHERE oid = to_regclass('hookrelay.events')), false)`

// readLayout reads whether the event log is partitioned, which decides
// how Ingest writes the dedupe's key (see ingestBatch).
func (s *Store) readLayout(ctx context.Context) error {
	return s.readLayoutOn(ctx, s.other)
}

// readLayoutOn is readLayout on q.
func (s *Store) readLayoutOn(ctx context.Context, q querier) error {
	var partitioned bool
	if err := q.QueryRow(ctx, s.sql.SQL(selectLayout)).Scan(&partitioned); err != nil {
		return err
	}
	s.partitioned.Store(partitioned)
	return nil
}

// isLayoutChanged tells whether err is the one an unpartitioned
// statement meets on a partitioned event log: no unique index matches
// ON CONFLICT (source, provider_event_id) (42P10, invalid_column_reference).
func isLayoutChanged(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42P10"
}
