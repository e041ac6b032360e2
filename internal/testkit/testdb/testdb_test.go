package testdb

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestNewSchemaDrop creates a schema, writes a table into it through its
// URL, and drops it.
func TestNewSchemaDrop(t *testing.T) {
	t.Parallel()
	PostgresURL(t) // skips, or fails, as every PostgreSQL test does
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := NewSchema(ctx, os.Getenv(PostgresURLEnv))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE events (id text primary key)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'events'", s.name).Scan(&n); err != nil || n != 1 {
		t.Fatalf("tables named events in %s: %d, %v; want 1", s.name, n, err)
	}
	if err := s.Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1", s.name).Scan(&n); err != nil || n != 0 {
		t.Errorf("schema count after Drop = %d, %v; want 0", n, err)
	}
}
