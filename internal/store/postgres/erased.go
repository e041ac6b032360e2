package postgres

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

// vacuumErased rewrites the tables a purge writes, with their TOAST tables
// and indexes, into new files; the old files are emptied when it commits.
const vacuumErased = "VACUUM (FULL, ANALYZE) hookrelay.events, hookrelay.deliveries, hookrelay.attempts;"

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
	return s.tables.Rewrite(vacuumErased), nil
}
