package postgres

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestLegacyTablesMoved migrates a database whose tables an earlier
// version created in public, as it did without a search_path in the URL:
// they move into the hookrelay schema with their rows, indexes and
// triggers, and public keeps none of them.
func TestLegacyTablesMoved(t *testing.T) {
	t.Parallel()
	url := testdb.PostgresDatabaseURL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	legacy := storetest.LegacyMigrations(t, ms, 29)
	if _, err := conn.Exec(ctx, `CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	for _, m := range legacy {
		if _, err := conn.Exec(ctx, m.SQL); err != nil {
			t.Fatalf("legacy %s: %v", m.Name, err)
		}
		if _, err := conn.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, m.Version); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, `INSERT INTO paused_destinations (destination, paused_at, actor) VALUES ($1, $2, 'ops')`,
		storetest.LegacyPaused, time.Now()); err != nil {
		t.Fatal(err)
	}

	s := openURL(t, url)
	if s.tables.Schema() != sqlstore.DefaultSchema {
		t.Fatalf("schema = %s, want %s", s.tables.Schema(), sqlstore.DefaultSchema)
	}
	storetest.CheckLegacyMoved(t, s)
	var left, moved int
	if err := conn.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'),
		(SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'hookrelay' AND c.relkind = 'r')`).
		Scan(&left, &moved); err != nil {
		t.Fatal(err)
	}
	if left != 0 || moved == 0 {
		t.Errorf("tables left in public = %d, in hookrelay = %d; want 0 and all", left, moved)
	}
	pending, err := s.PendingMigrations(ctx)
	if err != nil || len(pending) != 0 {
		t.Errorf("pending after the move = %v, %v", pending, err)
	}
}

// TestSchemaOption opens two stores on one database, one in a schema
// given as an option: each keeps its own tables.
func TestSchemaOption(t *testing.T) {
	t.Parallel()
	url := testdb.PostgresDatabaseURL(t)
	open := func(schema string) *Store {
		return storetest.Migrated(t, func(ctx context.Context) (*Store, error) {
			return Open(ctx, url, WithTestPartitions(Options{Schema: schema, IngestConns: 2, OtherConns: 2}), slog.New(slog.DiscardHandler))
		})
	}
	def, other := open(""), open("relay_two")
	if def.tables.Schema() != "hookrelay" || other.tables.Schema() != "relay_two" {
		t.Fatalf("schemas = %s, %s", def.tables.Schema(), other.tables.Schema())
	}
	ctx := context.Background()
	if err := other.SetPaused(ctx, "billing", true, "ops", time.Now()); err != nil {
		t.Fatal(err)
	}
	for s, want := range map[*Store]bool{def: false, other: true} {
		paused, err := s.IsPaused(ctx, "billing")
		if err != nil || paused != want {
			t.Errorf("schema %s: billing paused = %v, %v; want %v", s.tables.Schema(), paused, err, want)
		}
	}
	if _, err := Open(ctx, url, Options{Schema: "pg_catalog"}, nil); err == nil {
		t.Error("Open in schema pg_catalog succeeded")
	}
}

// TestExportedMigrations applies the exported migrations, for a schema of
// the application's choosing, as a migration tool would: one file at a
// time on a connection whose search_path is not that schema.
func TestExportedMigrations(t *testing.T) {
	t.Parallel()
	url := testdb.PostgresDatabaseURL(t)
	ms, err := Migrations("relay_tables")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	s, err := Open(ctx, url, Options{Schema: "relay_tables", IngestConns: 2, OtherConns: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.CheckExportedMigrations(t, ms, func(sql string) error {
		_, err := conn.Exec(ctx, sql)
		return err
	}, s)
}
