package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
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
// schema_migrations, all in one transaction that first takes an advisory
// lock, so that several processes starting at once apply each migration
// exactly once.
func (s *Store) Migrate(ctx context.Context) error {
	ms, err := migrations()
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
func apply(ctx context.Context, tx pgx.Tx, ms []migration) ([]string, error) {
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
		if slices.Contains(done, m.version) {
			continue
		}
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return nil, fmt.Errorf("apply %s: %w", m.name, err)
		}
		if _, err := tx.Exec(ctx, recordMigration, m.version); err != nil {
			return nil, fmt.Errorf("record %s: %w", m.name, err)
		}
		applied = append(applied, m.name)
	}
	return applied, nil
}
