package sqlite_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlite"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// openTest opens and migrates a store on a new file in a temporary
// directory, closed when the test ends.
func openTest(tb testing.TB) *sqlite.Store {
	tb.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), "hookrelay.db"), slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	if err := s.Migrate(ctx); err != nil {
		tb.Fatalf("Migrate: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store { return openTest(t) })
}

func BenchmarkIngest(b *testing.B) {
	storetest.BenchIngest(b, openTest(b))
}

func BenchmarkClaim(b *testing.B) {
	storetest.BenchClaim(b, openTest(b))
}
