package postgres_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/postgres"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// openKeyed opens and migrates a store with keys on url, closed when the
// test ends.
func openKeyed(tb testing.TB, url string, keys *payloadcrypt.Ring) *postgres.Store {
	tb.Helper()
	return storetest.Migrated(tb, func(ctx context.Context) (*postgres.Store, error) {
		return postgres.Open(ctx, url, postgres.WithTestPartitions(postgres.Options{Keys: keys}), slog.New(slog.DiscardHandler))
	})
}

func TestConformanceSealed(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.DB {
		s := openKeyed(t, testdb.PostgresURL(t), storetest.TestKeys(t, "k1"))
		postgres.SetReplayBatch(s, 2)
		return s
	})
}

func TestSealed(t *testing.T) {
	t.Parallel()
	storetest.RunSealed(t, func(t *testing.T) func(*payloadcrypt.Ring) store.DB {
		url := testdb.PostgresURL(t)
		return func(keys *payloadcrypt.Ring) store.DB { return openKeyed(t, url, keys) }
	})
}

// markerRows counts the rows of events and attempts that hold the marker
// anywhere: in a column's text, or in the raw bytes of a bytea column.
const markerRows = `SELECT
  (SELECT count(*) FROM hookrelay.events e WHERE position(convert_to($1, 'UTF8') IN convert_to(e::text, 'UTF8')) > 0
     OR position(convert_to($1, 'UTF8') IN e.body) > 0)
+ (SELECT count(*) FROM hookrelay.attempts a WHERE position(convert_to($1, 'UTF8') IN convert_to(a::text, 'UTF8')) > 0
     OR position(convert_to($1, 'UTF8') IN a.response_snippet) > 0
     OR position(convert_to($1, 'UTF8') IN a.headers) > 0)`

// TestSealedNotInTables looks for the marker in every row of events and
// attempts as the server holds them.
func TestSealedNotInTables(t *testing.T) {
	t.Parallel()
	storetest.CheckNotStored(t, func(t *testing.T, keys *payloadcrypt.Ring) (store.DB, func() int) {
		url := testdb.PostgresURL(t)
		st := openKeyed(t, url, keys)
		return st, func() int {
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var n int
			if err := conn.QueryRow(ctx, st.Qualify(markerRows), storetest.Marker).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
	})
}

// BenchmarkIngestSealed is BenchmarkIngest with payloads sealed: the two
// side by side are the store's share of the cost of encryption at rest.
func BenchmarkIngestSealed(b *testing.B) {
	storetest.BenchIngest(b, openKeyed(b, testdb.PostgresURL(b), storetest.TestKeys(b, "k1")))
}

func BenchmarkClaimSealed(b *testing.B) {
	storetest.BenchClaim(b, openKeyed(b, testdb.PostgresURL(b), storetest.TestKeys(b, "k1")))
}
