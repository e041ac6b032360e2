// Package storeopen opens the storage driver a database URL names. It is
// the one place that imports both drivers, so that a program or a test that
// needs a store imports this package rather than the code that assembles a
// relay.
package storeopen

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/postgres"
	"github.com/hookrelay/hookrelay/internal/store/sqlite"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// Options are what a store is opened with beyond its URL.
type Options struct {
	// Keys seal the payloads the store writes and open those it reads;
	// nil stores payloads plain.
	Keys *payloadcrypt.Ring
	// Schema is the PostgreSQL schema of hookrelay's tables (see
	// postgres.Options.Schema).
	Schema string
	// Pool, when set, is an application's PostgreSQL pool, which the
	// store runs on in place of pools of its own (see postgres.OpenPool);
	// the URL then only names the driver.
	Pool *pgxpool.Pool
	// Partitions is the period a PostgreSQL event log is partitioned by
	// (see postgres.Options.Partitions); SQLite has none.
	Partitions store.PartitionPeriod
}

// Open opens the database named by a config's database URL: "sqlite:PATH"
// or "postgres://…" ("postgresql://…"), with no keys. It does not migrate.
// A SQLite path that cannot hold a database is refused with one sentence
// that names the path and what to change.
func Open(ctx context.Context, url string, logger *slog.Logger) (store.DB, error) {
	return OpenWith(ctx, url, Options{}, logger)
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, url string, opts Options, logger *slog.Logger) (store.DB, error) {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		if err := checkSQLitePath(path); err != nil {
			return nil, err
		}
		s, err := sqlite.OpenWith(ctx, path, sqlite.Options{Keys: opts.Keys}, logger)
		if err != nil {
			return nil, fmt.Errorf("database sqlite:%s: %w", path, err)
		}
		return s, nil
	case opts.Pool != nil:
		s, err := postgres.OpenPool(ctx, opts.Pool, postgres.Options{Keys: opts.Keys, Schema: opts.Schema, Partitions: opts.Partitions}, logger)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		return s, nil
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		s, err := postgres.Open(ctx, url, postgres.Options{Keys: opts.Keys, Schema: opts.Schema, Partitions: opts.Partitions}, logger)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		return s, nil
	default:
		return nil, fmt.Errorf("open store: unsupported database URL (want sqlite:PATH or postgres://…)")
	}
}

// Tables returns where the store at url (a config's database URL) keeps
// hookrelay's tables, for statements written with hookrelay.NAME outside
// the store: a seed, a test's check.
func Tables(url string) (sqlstore.Tables, error) {
	if strings.HasPrefix(url, "sqlite:") {
		return sqlstore.Prefixed(), nil
	}
	return postgres.TablesOf(url, "")
}

// SQLitePath returns the file of the main database an application's
// database/sql handle on SQLite (modernc.org/sqlite) has open, as
// "sqlite:PATH" takes it; an in-memory database has none.
func SQLitePath(ctx context.Context, db *sql.DB) (string, error) {
	rows, err := db.QueryContext(ctx, "PRAGMA database_list")
	if err != nil {
		return "", fmt.Errorf("find the SQLite file: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			seq        int
			name, file string
		)
		if err := rows.Scan(&seq, &name, &file); err != nil {
			return "", fmt.Errorf("find the SQLite file: %w", err)
		}
		if name == "main" {
			if file == "" {
				return "", errors.New("find the SQLite file: the database is in memory: hookrelay needs a file")
			}
			return file, nil
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("find the SQLite file: %w", err)
	}
	return "", errors.New("find the SQLite file: the handle has no main database")
}

// Migrations returns the migrations of driver ("postgres", with
// hookrelay's tables in schema, or "sqlite") as an application's migration
// tool runs them (see sqlstore.ExportMigrations).
func Migrations(driver, schema string) ([]sqlstore.Migration, error) {
	switch driver {
	case "postgres":
		return postgres.Migrations(schema)
	case "sqlite":
		if schema != "" {
			return nil, errors.New("export migrations: SQLite has no schemas: hookrelay's tables are named hookrelay_*")
		}
		return sqlite.Migrations()
	}
	return nil, fmt.Errorf("export migrations: driver %q (want postgres or sqlite)", driver)
}
