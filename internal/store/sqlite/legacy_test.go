package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// TestLegacyTablesRenamed migrates a file whose tables an earlier version
// created without the hookrelay_ prefix: they are renamed with their
// rows, indexes and triggers, and no unprefixed table is left.
func TestLegacyTablesRenamed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "app.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := s.writer.ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`)
	for _, m := range storetest.LegacyMigrations(t, ms, 29) {
		exec(m.SQL)
		exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)`, m.Version)
	}
	exec(`INSERT INTO paused_destinations (destination, paused_at, actor) VALUES (?, ?, 'ops')`,
		storetest.LegacyPaused, micros(time.Now()))
	s.Close()

	s = openFile(t, path)
	storetest.CheckLegacyMoved(t, s)
	rows, err := s.reader.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'hookrelay\_%' ESCAPE '\' AND name <> 'sqlite_sequence'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		t.Errorf("table %s left without the prefix", name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestExportedMigrations applies the exported migrations as a migration
// tool would, one file at a time on a connection of its own.
func TestExportedMigrations(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "app.db")
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.CheckExportedMigrations(t, ms, func(sql string) error {
		_, err := s.writer.ExecContext(context.Background(), sql)
		return err
	}, s)
}
