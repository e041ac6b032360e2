package sqlite

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// migrationFiles holds the numbered migrations Migrate applies.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrate applies every embedded migration not yet recorded in
// schema_migrations, each in its own immediate transaction, so that several
// processes migrating one file at once apply each migration exactly once.
func (s *Store) Migrate(ctx context.Context) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer release()
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, m := range ms {
		applied, err := s.apply(ctx, m)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", m.Name, mapErr(ctx, err))
		}
		if applied {
			s.logger.Info("migration applied", logMigration, m.Name)
		}
	}
	return nil
}

// apply applies m unless it was applied already, and tells whether it did.
func (s *Store) apply(ctx context.Context, m sqlstore.Migration) (bool, error) {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, createSchemaMigrations); err != nil {
		return false, err
	}
	var n int
	if err := tx.QueryRowContext(ctx, migrationApplied, m.Version).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, recordMigration, m.Version, micros(time.Now())); err != nil {
		return false, err
	}
	return true, tx.Commit()
}
