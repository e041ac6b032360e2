package sqlite

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// TestFilesArePrivate checks that the database, its WAL and its
// shared-memory file are created readable by their owner only, and that
// opening says nothing about them.
func TestFilesArePrivate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hookrelay.db")
	var logs bytes.Buffer
	s := storetest.Migrated(t, func(ctx context.Context) (*Store, error) {
		return Open(ctx, path, slog.New(slog.NewJSONHandler(&logs, nil)))
	})
	if _, err := s.Ingest(context.Background(), []store.IngestItem{storetest.Item("stripe", "evt_mode", []byte(`{}`))}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if mode := st.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %04o, want 0600", p, mode)
		}
	}
	if strings.Contains(logs.String(), "open to other users") {
		t.Errorf("a private database is warned about:\n%s", logs.String())
	}
}

// TestOpenModesWarned checks that a database file others may read is
// opened, with a warning that names it and its mode, and left as it is.
func TestOpenModesWarned(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hookrelay.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	storetest.Migrated(t, func(ctx context.Context) (*Store, error) {
		return Open(ctx, path, slog.New(slog.NewJSONHandler(&logs, nil)))
	})
	want := `"msg":"database file is open to other users","component":"store.sqlite","path":"` + path + `","mode":"0644","want":"0600"`
	if !strings.Contains(logs.String(), want) {
		t.Errorf("logs lack %s:\n%s", want, logs.String())
	}
}
