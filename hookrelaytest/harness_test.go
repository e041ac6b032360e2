package hookrelaytest_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/hookrelaytest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// The tests use the package as an application does: on its own database,
// opened by its own pool or *sql.DB, with a table of its own, effects.

// app is the application's database in a test.
type app struct {
	url string // as hookrelay.Config's Database takes it
	sq  *sql.DB
	pg  *pgxpool.Pool
}

// eachDriver runs test on SQLite and on PostgreSQL, each on a fresh
// database where the application's table effects exists.
func eachDriver(t *testing.T, test func(t *testing.T, a *app)) {
	for _, drv := range testdb.Drivers() {
		t.Run(drv.Name, func(t *testing.T) {
			t.Parallel()
			test(t, openApp(t, drv.URL(t)))
		})
	}
}

// openApp opens the database at url as the application does, and
// creates the table effects.
func openApp(t *testing.T, url string) *app {
	t.Helper()
	a := &app{url: url}
	if path, ok := strings.CutPrefix(url, "sqlite:"); ok {
		db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		a.sq = db
	} else {
		pool, err := pgxpool.New(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		a.pg = pool
	}
	a.exec(t, `CREATE TABLE effects (event_id text NOT NULL, note text NOT NULL DEFAULT '')`)
	return a
}

// db is the application's database as hookrelaytest takes it.
func (a *app) db() hookrelaytest.DB {
	if a.pg != nil {
		return hookrelaytest.Postgres(a.pg)
	}
	return hookrelaytest.SQLite(a.sq)
}

func (a *app) exec(t *testing.T, query string, args ...any) {
	t.Helper()
	var err error
	if a.pg != nil {
		_, err = a.pg.Exec(context.Background(), query, args...)
	} else {
		_, err = a.sq.Exec(query, args...)
	}
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// effects returns the rows of effects, as "event_id note".
func (a *app) effects(t *testing.T) []string {
	t.Helper()
	const q = `SELECT event_id || ' ' || note FROM effects ORDER BY event_id, note`
	var r rows
	if a.pg != nil {
		pr, err := a.pg.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		r = pr
	} else {
		sr, err := a.sq.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer sr.Close()
		r = sr
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

// record is what a handler under test writes: ev's provider id and note,
// in the application's table, through tx.
func record(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event, note string) error {
	const q = `INSERT INTO effects (event_id, note) VALUES ($1, $2)`
	if pg := tx.Postgres(); pg != nil {
		_, err := pg.Exec(ctx, q, ev.ProviderEventID, note)
		return err
	}
	_, err := tx.SQLite().ExecContext(ctx, q, ev.ProviderEventID, note)
	return err
}
