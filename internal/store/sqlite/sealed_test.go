package sqlite_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlite"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// openKeyed opens and migrates a store with keys on path, closed when the
// test ends.
func openKeyed(tb testing.TB, path string, keys *payloadcrypt.Ring) *sqlite.Store {
	tb.Helper()
	return storetest.Migrated(tb, func(ctx context.Context) (*sqlite.Store, error) {
		return sqlite.OpenWith(ctx, path, sqlite.Options{Keys: keys}, slog.New(slog.DiscardHandler))
	})
}

func TestConformanceSealed(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.DB {
		s := openKeyed(t, filepath.Join(t.TempDir(), "hookrelay.db"), storetest.TestKeys(t, "k1"))
		sqlite.SetReplayBatch(s, 2)
		return s
	})
}

func TestSealed(t *testing.T) {
	t.Parallel()
	storetest.RunSealed(t, func(t *testing.T) func(*payloadcrypt.Ring) store.DB {
		path := filepath.Join(t.TempDir(), "hookrelay.db")
		return func(keys *payloadcrypt.Ring) store.DB { return openKeyed(t, path, keys) }
	})
}

// TestSealedNotInFile looks for the marker in the database file, its WAL
// and its shm, byte for byte.
func TestSealedNotInFile(t *testing.T) {
	t.Parallel()
	storetest.CheckNotStored(t, func(t *testing.T, keys *payloadcrypt.Ring) (store.DB, func() int) {
		path := filepath.Join(t.TempDir(), "hookrelay.db")
		return openKeyed(t, path, keys), func() int {
			n := 0
			for _, name := range []string{path, path + "-wal", path + "-shm"} {
				b, err := os.ReadFile(name)
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				n += bytes.Count(b, []byte(storetest.Marker))
			}
			return n
		}
	})
}

// BenchmarkIngestSealed is BenchmarkIngest with payloads sealed: the two
// side by side are the store's share of the cost of encryption at rest.
func BenchmarkIngestSealed(b *testing.B) {
	storetest.BenchIngest(b, openKeyed(b, filepath.Join(b.TempDir(), "hookrelay.db"), storetest.TestKeys(b, "k1")))
}

func BenchmarkClaimSealed(b *testing.B) {
	storetest.BenchClaim(b, openKeyed(b, filepath.Join(b.TempDir(), "hookrelay.db"), storetest.TestKeys(b, "k1")))
}
