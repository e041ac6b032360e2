package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// TestCountersBackfilled checks that the counters' migrations count the
// rows stored before them.
func TestCountersBackfilled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "hookrelay.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ms, err := sqlstore.ReadMigrations(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Version > storetest.CountersFrom {
			break
		}
		if _, err := s.apply(ctx, m); err != nil {
			t.Fatalf("apply %s: %v", m.Name, err)
		}
	}
	storetest.CheckCountersBackfilled(t, storetest.Legacy{
		Store: s,
		Exec: func(ctx context.Context, query string, args ...any) error {
			_, err := s.writer.ExecContext(ctx, s.rewriter.SQL(query), args...)
			return err
		},
		Time: func(t time.Time) any { return micros(t) },
	})
}
