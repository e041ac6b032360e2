package sqlite

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

var _ store.MigrationStatus = (*Store)(nil)

const (
	hasSchemaMigrations = `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`
	appliedVersions     = `SELECT version FROM schema_migrations`
)

// PendingMigrations returns the embedded migrations not recorded in
// schema_migrations, reading only.
func (s *Store) PendingMigrations(ctx context.Context) ([]string, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("pending migrations: %w", err)
	}
	defer release()
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("pending migrations: %w", err)
	}
	done := map[int]bool{}
	var n int
	if err := s.reader.QueryRowContext(ctx, hasSchemaMigrations).Scan(&n); err != nil {
		return nil, fmt.Errorf("pending migrations: %w", mapErr(ctx, err))
	}
	if n > 0 {
		rows, err := s.reader.QueryContext(ctx, appliedVersions)
		if err != nil {
			return nil, fmt.Errorf("pending migrations: %w", mapErr(ctx, err))
		}
		defer rows.Close()
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				return nil, fmt.Errorf("pending migrations: %w", mapErr(ctx, err))
			}
			done[v] = true
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("pending migrations: %w", mapErr(ctx, err))
		}
	}
	return sqlstore.Pending(ms, done), nil
}
