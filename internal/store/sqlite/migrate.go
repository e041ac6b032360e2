package sqlite

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered file of migrations/.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in order. Their names are
// NNNN_what.sql.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations") // sorted by name
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	ms := make([]migration, 0, len(entries))
	for _, e := range entries {
		num, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("read migrations: %s has no version number", e.Name())
		}
		b, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migrations: %w", err)
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	return ms, nil
}

// Migrate applies every embedded migration not yet recorded in
// schema_migrations, each in its own immediate transaction, so that several
// processes migrating one file at once apply each migration exactly once.
func (s *Store) Migrate(ctx context.Context) error {
	if err := s.enter(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer s.mu.RUnlock()
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, m := range ms {
		applied, err := s.apply(ctx, m)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, mapErr(ctx, err))
		}
		if applied {
			s.logger.Info("migration applied", logMigration, m.name)
		}
	}
	return nil
}

// apply applies m unless it was applied already, and tells whether it did.
func (s *Store) apply(ctx context.Context, m migration) (bool, error) {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, createSchemaMigrations); err != nil {
		return false, err
	}
	var n int
	if err := tx.QueryRowContext(ctx, migrationApplied, m.version).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, recordMigration, m.version, micros(time.Now())); err != nil {
		return false, err
	}
	return true, tx.Commit()
}
