package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

var _ store.MigrationStatus = (*Store)(nil)

const hasSchemaMigrations = `SELECT to_regclass('schema_migrations') IS NOT NULL`

// PendingMigrations returns the embedded migrations not recorded in
// schema_migrations, reading only.
func (s *Store) PendingMigrations(ctx context.Context) ([]string, error) {
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("pending migrations: %w", err)
	}
	done := map[int]bool{}
	var exists bool
	if err := s.other.QueryRow(ctx, hasSchemaMigrations).Scan(&exists); err != nil {
		return nil, fmt.Errorf("pending migrations: %w", s.mapErr(ctx, err))
	}
	if exists {
		rows, err := s.other.Query(ctx, selectMigrations)
		if err != nil {
			return nil, fmt.Errorf("pending migrations: %w", s.mapErr(ctx, err))
		}
		versions, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return nil, fmt.Errorf("pending migrations: %w", s.mapErr(ctx, err))
		}
		for _, v := range versions {
			done[v] = true
		}
	}
	return sqlstore.Pending(ms, done), nil
}
