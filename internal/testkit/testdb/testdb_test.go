package testdb

import (
	"context"
	"os"
	"os/exec"
	"strings"
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

// childEnv, set in the environment of this test binary run again as a
// child, makes TestRequiredPostgresChild ask for a PostgreSQL database.
const childEnv = "HOOKRELAY_TESTDB_CHILD"

// TestRequiredPostgresChild is run by TestRequiredPostgresFails alone.
func TestRequiredPostgresChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("run by TestRequiredPostgresFails")
	}
	PostgresURL(t)
}

// With HOOKRELAY_REQUIRE_POSTGRES=1 (as CI sets it) and no server named,
// a PostgreSQL test fails, naming the variable to set, instead of
// skipping: CI cannot pass without the PostgreSQL suite.
func TestRequiredPostgresFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		require string
		want    string
	}{
		{"1", "--- FAIL: TestRequiredPostgresChild"},
		{"", "--- SKIP: TestRequiredPostgresChild"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRequiredPostgresChild$", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"=1", PostgresURLEnv+"=", RequirePostgresEnv+"="+tc.require)
		out, err := cmd.CombinedOutput()
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("%s=%q: the child printed %q (%v), want %q", RequirePostgresEnv, tc.require, out, err, tc.want)
		}
		if failed := err != nil; failed != (tc.require == "1") || tc.require == "1" && !strings.Contains(string(out), PostgresURLEnv+" is required") {
			t.Errorf("%s=%q: the child ended with %v:\n%s", RequirePostgresEnv, tc.require, err, out)
		}
	}
}
