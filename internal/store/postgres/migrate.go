package postgres

import (
	"context"
	"embed"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// migrationFiles holds the numbered migrations Migrate applies.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrate applies every embedded migration not yet recorded in
// schema_migrations, all in one transaction that first takes an advisory
// lock, so that several processes starting at once apply each migration
// exactly once.
func (s *Store) Migrate(ctx context.Context) error {
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var applied []string
	err = pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		applied, err = apply(ctx, tx, ms)
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", s.mapErr(ctx, err))
	}
	for _, name := range applied {
		s.logger.Info("migration applied", logMigration, name)
	}
	return nil
}

// apply applies, in tx, the migrations of ms not yet recorded, and returns
// their names.
func apply(ctx context.Context, tx pgx.Tx, ms []sqlstore.Migration) ([]string, error) {
	if _, err := tx.Exec(ctx, lockMigrations, migrateLockKey); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, createSchemaMigrations); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, selectMigrations)
	if err != nil {
		return nil, err
	}
	done, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, err
	}
	var applied []string
	for _, m := range ms {
		if slices.Contains(done, m.Version) {
			continue
		}
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return nil, fmt.Errorf("apply %s: %w", m.Name, err)
		}
		if _, err := tx.Exec(ctx, recordMigration, m.Version); err != nil {
			return nil, fmt.Errorf("record %s: %w", m.Name, err)
		}
		applied = append(applied, m.Name)
	}
	return applied, nil
}
