package main

import (
	"context"
	"log/slog"
	"testing"

	"github.com/hookrelay/hookrelay/hookrelaytest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// quiet discards the logs of the application and of hookrelay.
var quiet = slog.New(slog.DiscardHandler)

// testApp opens the application on a fresh database of driver and
// migrates it as main does; it is closed when the test ends. On PostgreSQL
// the database is one of its own, not a schema: hookrelay's tables are in
// the schema its committed migrations name, whatever the URL's
// search_path, and tests sharing a database would share them.
func testApp(t *testing.T, driver testdb.Driver) *app {
	t.Helper()
	url := driver.URL(t)
	if driver.Name == "postgres" {
		url = testdb.PostgresDatabaseURL(t)
	}
	a, err := openApp(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	if err := a.migrate(quiet); err != nil {
		t.Fatal(err)
	}
	return a
}

// testDB returns the application's database as hookrelaytest opens
// transactions on it: the pool, or the handle.
func (a *app) testDB() hookrelaytest.DB {
	if a.pool != nil {
		return hookrelaytest.Postgres(a.pool)
	}
	return hookrelaytest.SQLite(a.sqlite)
}

// queryInt runs a query that returns one integer on the application's
// database.
func (a *app) queryInt(t *testing.T, query string, args ...any) int64 {
	t.Helper()
	var n int64
	var err error
	if a.pool != nil {
		err = a.pool.QueryRow(context.Background(), query, args...).Scan(&n)
	} else {
		err = a.sqlite.QueryRowContext(context.Background(), query, args...).Scan(&n)
	}
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
