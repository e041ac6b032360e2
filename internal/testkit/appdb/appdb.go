// Package appdb is an application's own database in the tests of the
// library: opened as an application opens it, beside hookrelay's tables,
// and written by handlers through the transaction hookrelay hands them.
package appdb

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite" // registers the "sqlite" driver for database/sql

	"github.com/hookrelay/hookrelay"
)

// DB is the application's own connection to its database, outside
// hookrelay: exactly one of SQL and Pool is set.
type DB struct {
	// SQL is the SQLite database (driver modernc.org/sqlite).
	SQL *sql.DB
	// Pool is the PostgreSQL pool.
	Pool *pgxpool.Pool
}

// Open opens database, in the form hookrelay.Config's Database takes, as
// an application does; it is closed when the test ends.
func Open(t testing.TB, database string) DB {
	t.Helper()
	if path, ok := strings.CutPrefix(database, "sqlite:"); ok {
		db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return DB{SQL: db}
	}
	pool, err := pgxpool.New(context.Background(), database)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return DB{Pool: pool}
}

// Exec runs query with args, and fails the test when it fails.
func (d DB) Exec(t testing.TB, query string, args ...any) {
	t.Helper()
	var err error
	if d.Pool != nil {
		_, err = d.Pool.Exec(context.Background(), query, args...)
	} else {
		_, err = d.SQL.Exec(query, args...)
	}
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// Strings returns the one text column query selects, row by row.
func (d DB) Strings(t testing.TB, query string, args ...any) []string {
	t.Helper()
	var (
		r   rows
		err error
	)
	if d.Pool != nil {
		var pr pgx.Rows
		pr, err = d.Pool.Query(context.Background(), query, args...)
		if err == nil {
			defer pr.Close()
			r = pr
		}
	} else {
		var sr *sql.Rows
		sr, err = d.SQL.Query(query, args...)
		if err == nil {
			defer sr.Close()
			r = sr
		}
	}
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var out []string
	for r.Next() {
		var s string
		if err := r.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rows is what pgx.Rows and *sql.Rows share.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ExecTx runs query with args through a handler's transaction tx, on
// whichever driver it has.
func ExecTx(ctx context.Context, tx hookrelay.Tx, query string, args ...any) error {
	if pg := tx.Postgres(); pg != nil {
		_, err := pg.Exec(ctx, query, args...)
		return err
	}
	_, err := tx.SQLite().ExecContext(ctx, query, args...)
	return err
}
