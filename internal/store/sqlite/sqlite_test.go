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
	path := filepath.Join(tb.TempDir(), "hookrelay.db")
	return storetest.Migrated(tb, func(ctx context.Context) (*sqlite.Store, error) {
		return sqlite.Open(ctx, path, slog.New(slog.DiscardHandler))
	})
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.DB {
		s := openTest(t)
		sqlite.SetReplayBatch(s, 2) // every replay of the suite spans batches
		return s
	})
}

func TestTwoNodes(t *testing.T) {
	t.Parallel()
	storetest.RunTwoNodes(t, func(t *testing.T) func() store.DB {
		path := filepath.Join(t.TempDir(), "hookrelay.db")
		return func() store.DB {
			return storetest.Migrated(t, func(ctx context.Context) (*sqlite.Store, error) {
				return sqlite.Open(ctx, path, slog.New(slog.DiscardHandler))
			})
		}
	})
}

func BenchmarkIngest(b *testing.B) {
	storetest.BenchIngest(b, openTest(b))
}

// BenchmarkIngestSigned is BenchmarkIngest with a signature digest on
// every event.
func BenchmarkIngestSigned(b *testing.B) {
	storetest.BenchIngestSigned(b, openTest(b))
}

func BenchmarkClaim(b *testing.B) {
	storetest.BenchClaim(b, openTest(b))
}

// BenchmarkLeased measures the store's side of a delivery leased at
// ingest and finished done (storetest.BenchLeased): all of it, as
// SQLite runs in this process.
func BenchmarkLeased(b *testing.B) {
	storetest.BenchLeased(b, openTest(b), nil)
}

// BenchmarkDrain measures draining a stored backlog
// (storetest.BenchDrain): all of the store's CPU time.
func BenchmarkDrain(b *testing.B) {
	storetest.BenchDrain(b, openTest(b), nil)
}

// BenchmarkClaimCountingLost is BenchmarkClaim with the claims counting
// lost attempts, as the delivery engine's do.
func BenchmarkClaimCountingLost(b *testing.B) {
	storetest.BenchClaimCountingLost(b, openTest(b))
}

// BenchmarkClaimSizes compares claims of 32 and 128, each with its
// outcomes in one batch: the store's time per delivery for each.
func BenchmarkClaimSizes(b *testing.B) {
	storetest.BenchClaimSizes(b, openTest(b))
}
