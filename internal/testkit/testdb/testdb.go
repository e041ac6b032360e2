// Package testdb gives tests real, isolated databases: a SQLite file in a
// temporary directory, or a PostgreSQL schema of its own on the server named
// by HOOKRELAY_TEST_POSTGRES_URL (or, for the benchmark command, on the
// server it is given). PostgreSQL tests skip when that variable is
// unset, unless HOOKRELAY_REQUIRE_POSTGRES=1 (as in CI), where they fail.
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := NewSchema(ctx, base)
	if err != nil {
		t.Fatalf("%s: %v", PostgresURLEnv, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.Drop(ctx); err != nil {
			t.Error(err)
		}
	})
	return s.URL
}

// PostgresDatabaseURL creates a database of its own on the server, rather
// than a schema, and drops it when the test ends: for a test whose VACUUM
// must not wait for the transactions other tests hold open in theirs (a
// dead row stays while any transaction of its database may still see it).
// It skips or fails as PostgresURL does.
func PostgresDatabaseURL(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t) // skips or fails without a server
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresURLEnv, err)
	}
	name := "t_" + randomHex(8)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin := &Schema{base: os.Getenv(PostgresURLEnv)}
	if err := admin.exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		// DROP DATABASE waits for a checkpoint, which takes long when
		// other work has filled the server's buffers.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := admin.exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	u.Path = "/" + name
	q := u.Query()
	q.Del("search_path")
	u.RawQuery = q.Encode()
	return u.String()
}

// Schema is a PostgreSQL schema of its own, for a caller that is not a
// test (the benchmark command); tests use PostgresURL.
type Schema struct {
	// URL is the server's URL with a search_path that selects the schema.
	URL  string
	base string
	name string
}

// NewSchema creates a schema with a random name on the server at base, a
// postgres:// URL.
func NewSchema(ctx context.Context, base string) (*Schema, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("parse server URL: %w", err)
	}
	s := &Schema{base: base, name: "t_" + randomHex(8)}
	if err := s.exec(ctx, "CREATE SCHEMA "+s.name); err != nil {
		return nil, fmt.Errorf("create schema: %w", err)
	}
	q := u.Query()
	q.Set("search_path", s.name)
	u.RawQuery = q.Encode()
	s.URL = u.String()
	return s, nil
}

// Drop removes the schema and everything in it.
func (s *Schema) Drop(ctx context.Context) error {
	if err := s.exec(ctx, "DROP SCHEMA "+s.name+" CASCADE"); err != nil {
		return fmt.Errorf("drop schema %s: %w", s.name, err)
	}
	return nil
}

// exec runs stmt on a connection of its own to the server.
func (s *Schema) exec(ctx context.Context, stmt string) error {
	conn, err := pgx.Connect(ctx, s.base)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
