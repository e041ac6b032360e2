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
// hookrelay_schema_migrations, each in its own immediate transaction, so
// that several processes migrating one file at once apply each migration
// exactly once. First it renames, with the prefix, the tables an earlier
// version of hookrelay created without it (see renameLegacy).
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
	if err := s.renameLegacy(ctx); err != nil {
		return fmt.Errorf("migrate: %w", mapErr(ctx, err))
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
	if _, err := tx.ExecContext(ctx, s.rewriter.SQL(createSchemaMigrations)); err != nil {
		return false, err
	}
	var n int
	if err := tx.QueryRowContext(ctx, s.rewriter.SQL(migrationApplied), m.Version).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, s.rewriter.Tables.Rewrite(m.SQL)); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, s.rewriter.SQL(recordMigration), m.Version, micros(time.Now())); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// renameLegacy gives the hookrelay_ prefix, in one immediate transaction,
// to the tables an earlier version of hookrelay created without it, next
// to the application's: when the file has hookrelay's schema_migrations
// and deliveries unprefixed and no hookrelay_schema_migrations. SQLite
// rewrites the triggers and indexes that name a renamed table; the
// indexes and triggers keep their names.
func (s *Store) renameLegacy(ctx context.Context) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var legacy bool
	if err := tx.QueryRowContext(ctx, s.rewriter.SQL(selectLegacy)).Scan(&legacy); err != nil {
		return fmt.Errorf("find tables to rename: %w", err)
	}
	if !legacy {
		return nil
	}
	renamed := 0
	for _, t := range sqlstore.TableNames {
		var exists bool
		if err := tx.QueryRowContext(ctx, tableExists, t).Scan(&exists); err != nil {
			return fmt.Errorf("find table %s: %w", t, err)
		}
		if !exists {
			continue
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`ALTER TABLE %q RENAME TO %q`, t, s.rewriter.Tables.Name(t))); err != nil {
			return fmt.Errorf("rename table %s: %w", t, err)
		}
		renamed++
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.logger.Warn("tables renamed with their prefix", "prefix", sqlstore.SQLitePrefix, "tables", renamed)
	return nil
}

// Migrations returns the migrations for an application's migration tool:
// see sqlstore.ExportMigrations. They do not rename the tables of an
// earlier version (see renameLegacy): a database that has them migrates
// once with Migrate.
func Migrations() ([]sqlstore.Migration, error) {
	return sqlstore.ExportMigrations(migrationFiles, sqlstore.Prefixed(), sqlstore.MigrationScript{
		Head: createSchemaMigrations,
		Record: "INSERT OR IGNORE INTO hookrelay.schema_migrations (version, applied_at) " +
			"VALUES (%d, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER))",
	})
}
