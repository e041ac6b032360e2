package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// migrationFiles holds the numbered migrations Migrate applies.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrate applies every embedded migration not yet recorded in the
// schema's schema_migrations, all in one transaction that first takes an
// advisory lock, so that several processes starting at once apply each
// migration exactly once. It creates the schema; and it moves into it the
// tables and functions an earlier version of hookrelay created beside the
// application's, in the schema the connection's search_path finds them in
// (see moveLegacy).
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
	var applied []string
	err = pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		applied, err = s.apply(ctx, tx, ms)
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", s.mapErr(ctx, err))
	}
	for _, name := range applied {
		s.logger.Info("migration applied", logMigration, name)
	}
	if err := s.partitionEmpty(ctx); err != nil {
		return fmt.Errorf("migrate: %w", s.mapErr(ctx, err))
	}
	return nil
}

// partitionEmpty partitions the event log by the period of the store's
// options when it holds no event yet, which takes no time; one that
// holds events is converted by EnablePartitions alone.
func (s *Store) partitionEmpty(ctx context.Context) error {
	if s.partitions == store.PartitionsOff {
		return s.readLayout(ctx)
	}
	var empty bool
	if err := s.other.QueryRow(ctx, s.sql.SQL(`SELECT NOT EXISTS (SELECT 1 FROM hookrelay.events)`)).Scan(&empty); err != nil {
		return err
	}
	if err := s.readLayout(ctx); err != nil || s.partitioned.Load() || !empty {
		return err
	}
	err := s.enablePartitions(ctx, s.partitions, time.Now(), nil)
	if errors.Is(err, errPartitioned) {
		return nil // another process did
	}
	return err
}

// apply applies, in tx, the migrations of ms not yet recorded, and returns
// their names.
func (s *Store) apply(ctx context.Context, tx pgx.Tx, ms []sqlstore.Migration) ([]string, error) {
	if _, err := tx.Exec(ctx, lockMigrations, migrateLockKey); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{s.tables.Schema()}.Sanitize()); err != nil {
		return nil, fmt.Errorf("create schema: %w", err)
	}
	if err := s.moveLegacy(ctx, tx); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, s.sql.SQL(createSchemaMigrations)); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, s.sql.SQL(selectMigrations))
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
		if _, err := tx.Exec(ctx, s.tables.Rewrite(m.SQL)); err != nil {
			return nil, fmt.Errorf("apply %s: %w", m.Name, err)
		}
		if _, err := tx.Exec(ctx, s.sql.SQL(recordMigration), m.Version); err != nil {
			return nil, fmt.Errorf("record %s: %w", m.Name, err)
		}
		applied = append(applied, m.Name)
	}
	return applied, nil
}

// moveLegacy moves into the store's schema, in tx, the tables and
// functions an earlier version of hookrelay created unqualified: in the
// schema where the connection's search_path finds hookrelay's
// schema_migrations and deliveries tables (public, as a rule), when the
// store's schema has no schema_migrations yet. Indexes, sequences and
// triggers move with their tables; the functions' bodies, which name the
// tables unqualified, are replaced by migration 0029.
func (s *Store) moveLegacy(ctx context.Context, tx pgx.Tx) error {
	var legacy string
	switch err := tx.QueryRow(ctx, s.sql.SQL(selectLegacySchema), s.tables.Schema()).Scan(&legacy); {
	case errors.Is(err, pgx.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("find tables to move: %w", err)
	}
	to := pgx.Identifier{s.tables.Schema()}.Sanitize()
	for _, t := range sqlstore.TableNames {
		if _, err := tx.Exec(ctx, "ALTER TABLE IF EXISTS "+pgx.Identifier{legacy, t}.Sanitize()+" SET SCHEMA "+to); err != nil {
			return fmt.Errorf("move table %s.%s: %w", legacy, t, err)
		}
	}
	rows, err := tx.Query(ctx, selectLegacyFunctions, legacy, legacyFunctions)
	if err != nil {
		return fmt.Errorf("find functions to move: %w", err)
	}
	funcs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("find functions to move: %w", err)
	}
	for _, f := range funcs {
		if _, err := tx.Exec(ctx, "ALTER FUNCTION "+f+" SET SCHEMA "+to); err != nil {
			return fmt.Errorf("move function %s: %w", f, err)
		}
	}
	s.logger.Warn("tables moved into their schema", logSchema, s.tables.Schema(), "from", legacy,
		"functions", len(funcs))
	return nil
}

// Migrations returns the migrations for an application's migration tool,
// with hookrelay's tables in schema ("" means sqlstore.DefaultSchema; a
// search_path does not apply here): see sqlstore.ExportMigrations. They
// do not move the tables of an earlier version (see moveLegacy): a
// database that has them migrates once with Migrate.
func Migrations(schema string) ([]sqlstore.Migration, error) {
	tables, err := sqlstore.InSchema(schema)
	if err != nil {
		return nil, err
	}
	return sqlstore.ExportMigrations(migrationFiles, tables, sqlstore.MigrationScript{
		Head:   "CREATE SCHEMA IF NOT EXISTS " + pgx.Identifier{tables.Schema()}.Sanitize() + ";\n" + createSchemaMigrations,
		Record: "INSERT INTO hookrelay.schema_migrations (version) VALUES (%d) ON CONFLICT (version) DO NOTHING",
	})
}
