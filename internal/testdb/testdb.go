// Package testdb gives tests real, isolated databases: a SQLite file in a
// temporary directory, or a PostgreSQL schema of its own on the server named
// by HOOKRELAY_TEST_POSTGRES_URL. PostgreSQL tests skip when that variable is
// unset, unless HOOKRELAY_REQUIRE_POSTGRES=1 (as in CI), where they fail.
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Environment variables read by this package.
const (
	PostgresURLEnv     = "HOOKRELAY_TEST_POSTGRES_URL"
	RequirePostgresEnv = "HOOKRELAY_REQUIRE_POSTGRES"
)

// Driver names a storage driver and makes database URLs for it.
type Driver struct {
	// Name is "sqlite" or "postgres".
	Name string
	// URL returns a fresh, empty database in the form the config's
	// database key takes, removed when the test ends.
	URL func(t testing.TB) string
}

// Drivers lists both drivers, for tests that run against each.
func Drivers() []Driver {
	return []Driver{
		{Name: "sqlite", URL: SQLiteURL},
		{Name: "postgres", URL: PostgresURL},
	}
}

// SQLiteURL returns "sqlite:PATH" for a new file in a temporary directory.
func SQLiteURL(t testing.TB) string {
	t.Helper()
	return "sqlite:" + filepath.Join(t.TempDir(), "hookrelay.db")
}

// PostgresURL creates a schema with a random name, returns a URL whose
// search_path selects it, and drops the schema when the test ends. It skips
// the test when no server is configured, or fails it when one is required.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresURLEnv)
	if base == "" {
		if os.Getenv(RequirePostgresEnv) == "1" {
			t.Fatalf("%s is required (set %s=postgres://…)", PostgresURLEnv, PostgresURLEnv)
		}
		t.Skipf("PostgreSQL tests skipped: %s is not set", PostgresURLEnv)
	}
	schema := "t_" + randomHex(8)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", PostgresURLEnv, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("connect to drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresURLEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
