package postgres

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// vacuumErased rewrites the tables a purge writes, with their TOAST tables
// and indexes, into new files; the old files are emptied when it commits.
const vacuumErased = "VACUUM (FULL, ANALYZE) events, deliveries, attempts;"

// ClearErased returns the statement that removes what purges erased from
// PostgreSQL's files. An UPDATE leaves the earlier version of a row in its
// page until VACUUM, and VACUUM leaves the bytes of what it removes in the
// page's free space: only a rewrite removes them, and VACUUM FULL holds an
// exclusive lock on each table while it rewrites it (ingest and delivery
// wait), so it is for the operator to run at a quiet time, not for a purge.
func (s *Store) ClearErased(context.Context) (string, error) {
	if s.closed.Load() {
		return "", fmt.Errorf("clear erased bytes: %w: store closed", store.ErrUnavailable)
	}
	return vacuumErased, nil
}

// AuditKey returns the database's audit key, made by the first caller.
func (s *Store) AuditKey(ctx context.Context) ([]byte, error) {
	if _, err := s.other.Exec(ctx, insertAuditKey, sqlstore.AuditKeyName, sqlstore.NewAuditKey()); err != nil {
		return nil, fmt.Errorf("make audit key: %w", s.mapErr(ctx, err))
	}
	var key []byte
	if err := s.other.QueryRow(ctx, selectAuditKey, sqlstore.AuditKeyName).Scan(&key); err != nil {
		return nil, fmt.Errorf("read audit key: %w", s.mapErr(ctx, err))
	}
	return sqlstore.CheckAuditKey(key)
}
