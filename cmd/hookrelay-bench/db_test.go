package main

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"
)

func TestSQLiteCountEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, err := newBenchDB(ctx, "sqlite", t.TempDir(), "count", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.URL(), "sqlite:") {
		t.Fatalf("URL %q", d.URL())
	}
	db, err := sql.Open("sqlite", "file:"+strings.TrimPrefix(d.URL(), "sqlite:"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE events (id text primary key); INSERT INTO events VALUES ('a'), ('b'), ('c')"); err != nil {
		t.Fatal(err)
	}
	n, err := d.CountEvents(ctx)
	if err != nil || n != 3 {
		t.Fatalf("CountEvents = %d, %v; want 3", n, err)
	}
	if err := d.Drop(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestPostgresCreateCountDrop runs against the local server of the
// development machine and CI; it is skipped where there is none.
func TestPostgresCreateCountDrop(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const server = "postgres://postgres@127.0.0.1:5432/postgres"
	d, err := newBenchDB(ctx, "postgres", "", "", server)
	if err != nil {
		if strings.Contains(err.Error(), "connect") {
			t.Skipf("no PostgreSQL at 127.0.0.1:5432: %v", err)
		}
		t.Fatal(err)
	}
	pg := d.(*postgresDB)
	t.Cleanup(func() { _ = d.Drop(context.Background()) })
	if !strings.Contains(d.URL(), "/hookrelay_bench_") {
		t.Fatalf("URL %q", d.URL())
	}
	pg.admin = d.URL() // run the set-up statements inside the new database
	if err := pg.exec(ctx, "CREATE TABLE events (id text primary key)"); err != nil {
		t.Fatal(err)
	}
	if err := pg.exec(ctx, "INSERT INTO events VALUES ('a'), ('b')"); err != nil {
		t.Fatal(err)
	}
	pg.admin = server
	n, err := d.CountEvents(ctx)
	if err != nil || n != 2 {
		t.Fatalf("CountEvents = %d, %v; want 2", n, err)
	}
	if err := d.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.CountEvents(ctx); err == nil {
		t.Fatal("the database is still there after Drop")
	}
}
