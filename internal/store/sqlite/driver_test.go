package sqlite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// openFile opens and migrates a store on path, closed when the test ends.
func openFile(t *testing.T, path string) *Store {
	t.Helper()
	return storetest.Migrated(t, func(ctx context.Context) (*Store, error) {
		return Open(ctx, path, slog.New(slog.DiscardHandler))
	})
}

func TestWriterPragmas(t *testing.T) {
	t.Parallel()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	for _, c := range []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "1"}, // NORMAL: Ingest fsyncs the WAL itself
		{"wal_autocheckpoint", "0"},
		{"foreign_keys", "1"},
		{"busy_timeout", "5000"},
		{"secure_delete", "1"}, // a purge leaves no payload byte in free space
	} {
		var got string
		if err := s.writer.QueryRow("PRAGMA " + c.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", c.pragma, err)
		}
		if got != c.want {
			t.Errorf("writer PRAGMA %s = %s, want %s", c.pragma, got, c.want)
		}
	}
	var readOnly string
	if err := s.reader.QueryRow("PRAGMA query_only").Scan(&readOnly); err != nil || readOnly != "1" {
		t.Errorf("reader PRAGMA query_only = %q, %v; want 1", readOnly, err)
	}
}

func TestOpenRejectsURIsAndMemory(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"", ":memory:", "file:x.db", filepath.Join(t.TempDir(), "x.db?mode=ro")} {
		s, err := Open(context.Background(), path, nil)
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded, want an error", path)
			continue
		}
		t.Logf("Open(%q): %v", path, err)
	}
}

func TestBodyStoredAsBlob(t *testing.T) {
	t.Parallel()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	if _, err := s.Ingest(context.Background(), []store.IngestItem{
		storetest.Item("stripe", "1", []byte("{}")), storetest.Item("stripe", "2", nil),
	}); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	rows, err := s.reader.Query("SELECT typeof(body), typeof(received_at) FROM hookrelay_events")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var body, received string
		if err := rows.Scan(&body, &received); err != nil {
			t.Fatal(err)
		}
		if body != "blob" || received != "integer" {
			t.Errorf("body stored as %s and received_at as %s, want blob and integer", body, received)
		}
	}
}

func TestReopenKeepsEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hookrelay.db")
	s := openFile(t, path)
	if _, err := s.Ingest(ctx, []store.IngestItem{storetest.Item("stripe", "1", []byte("{}"))}); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s = openFile(t, path)
	if _, err := s.GetEvent(ctx, "evt_1"); err != nil {
		t.Fatalf("GetEvent after reopening: %v", err)
	}
	got, err := s.Ingest(ctx, []store.IngestItem{storetest.Item("stripe", "1", []byte("{}"))})
	if err != nil || got[0] != store.IngestDuplicate {
		t.Fatalf("Ingest of a duplicate after reopening = %v, %v; want [duplicate]", got, err)
	}
}

// TestConcurrentMigrate has several stores, as several processes would,
// migrate one new file at once.
func TestConcurrentMigrate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hookrelay.db")
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	open := func(ctx context.Context) (*Store, error) { return Open(ctx, path, nil) }
	recorded := func(s *Store) (n int, err error) {
		err = s.reader.QueryRow("SELECT count(*) FROM hookrelay_schema_migrations").Scan(&n)
		return n, err
	}
	storetest.MigrateConcurrently(t, 4, open, recorded, len(ms))
}

// TestDiskFullIsUnavailable fills the database to its page limit: Ingest
// must fail with store.ErrUnavailable and commit nothing of the batch.
func TestDiskFullIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	var pages int64
	if err := s.writer.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+4)); err != nil {
		t.Fatal(err)
	}
	_, err := s.Ingest(ctx, []store.IngestItem{
		storetest.Item("stripe", "small", []byte("{}")),
		storetest.Item("stripe", "large", make([]byte, 1<<20)),
	})
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Ingest into a full database: error = %v, want ErrUnavailable", err)
	}
	t.Logf("Ingest into a full database: %v", err)
	if _, err := s.GetEvent(ctx, "evt_small"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetEvent of the failed batch's first event: error = %v, want ErrNotFound", err)
	}
}

// TestDeliveryNeedsOrderAt checks that a delivery row written without its
// order_at is refused, as PostgreSQL's NOT NULL refuses it.
func TestDeliveryNeedsOrderAt(t *testing.T) {
	t.Parallel()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	if _, err := s.Ingest(context.Background(), []store.IngestItem{storetest.Item("stripe", "1", []byte("{}"))}); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	_, err := s.writer.Exec(`INSERT INTO hookrelay_deliveries (event_id, destination, status, next_attempt_at, created_at, updated_at)
		VALUES ('evt_1', 'crm', 'pending', 1, 1, 1)`)
	if err == nil {
		t.Fatal("insert of a delivery without order_at succeeded, want an error")
	}
	t.Logf("insert of a delivery without order_at: %v", err)
}
