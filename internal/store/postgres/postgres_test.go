package postgres_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/postgres"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/proccpu"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// openTest opens and migrates a store on a schema of its own (see
// testdb.PostgresURL), closed when the test ends; it skips without
// HOOKRELAY_TEST_POSTGRES_URL.
func openTest(tb testing.TB) *postgres.Store {
	tb.Helper()
	return openTestURL(tb, testdb.PostgresURL(tb))
}

// openTestURL opens and migrates a store on url, closed when the test
// ends.
func openTestURL(tb testing.TB, url string) *postgres.Store {
	tb.Helper()
	return storetest.Migrated(tb, func(ctx context.Context) (*postgres.Store, error) {
		return postgres.Open(ctx, url, postgres.WithTestPartitions(postgres.Options{}), slog.New(slog.DiscardHandler))
	})
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.DB {
		s := openTest(t)
		postgres.SetReplayBatch(s, 2) // every replay of the suite spans batches
		return s
	})
}

func TestTwoNodes(t *testing.T) {
	t.Parallel()
	storetest.RunTwoNodes(t, func(t *testing.T) func() store.DB {
		url := testdb.PostgresURL(t)
		return func() store.DB { return openTestURL(t, url) }
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

// BenchmarkLeased measures a delivery leased at ingest and finished done
// (storetest.BenchLeased): the client's CPU time and the server's, every
// process of it that works for the test database (proccpu.ReadPostgres),
// which nothing else may use meanwhile.
func BenchmarkLeased(b *testing.B) {
	url := testdb.PostgresURL(b)
	storetest.BenchLeased(b, openTestURL(b, url), serverCPU(proccpu.URLDatabase(url)))
}

// BenchmarkDrain measures draining a stored backlog (storetest.BenchDrain)
// with the client's CPU time and the server's, as BenchmarkLeased does.
func BenchmarkDrain(b *testing.B) {
	url := testdb.PostgresURL(b)
	storetest.BenchDrain(b, openTestURL(b, url), serverCPU(proccpu.URLDatabase(url)))
}

// serverCPU reads the CPU time of the server's processes that work for
// database (proccpu.ReadPostgres).
func serverCPU(database string) storetest.ServerCPU {
	return func() func() time.Duration { return proccpu.ReadPostgres(database).Since }
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

// openPartitioned opens a store on a schema of its own, migrated with
// its event log partitioned by period, closed when the test ends.
func openPartitioned(tb testing.TB, period store.PartitionPeriod) *postgres.Store {
	tb.Helper()
	url := testdb.PostgresURL(tb)
	return storetest.Migrated(tb, func(ctx context.Context) (*postgres.Store, error) {
		return postgres.Open(ctx, url, postgres.Options{Partitions: period, IngestConns: 4, OtherConns: 8}, slog.New(slog.DiscardHandler))
	})
}

// TestConformancePartitioned runs, on an event log partitioned by day,
// the conformance tests of what partitioning changes: ingest and its
// dedupe, lookups by provider id, claims and outcomes (by delivery id
// across partitions), pruning (its delete triggers), replay and
// backfill, the counts, search, purge and the copy between stores. The
// whole suite runs partitioned too with the package's tests, when
// PartitionsEnv says so (HOOKRELAY_TEST_PARTITIONS=daily).
func TestConformancePartitioned(t *testing.T) {
	t.Parallel()
	storetest.RunOnly(t, func(t *testing.T) store.DB {
		s := openPartitioned(t, store.PartitionsDaily)
		postgres.SetReplayBatch(s, 2)
		return s
	}, "MigrateTwice", "CloseMakesUnavailable", "NoPendingMigrations",
		"Ingest", "Duplicate", "SameProviderID", "TakenID", "ReplayedSignature", "EventByProviderID", "GetDelivery",
		"ClaimOldest", "ClaimCountsLost", "Complete", "Release", "Snooze", "OrderingInterleaved", "LostHead",
		"Prune", "Replay", "Rearm", "Backfill", "CreateDeliveries", "StatsCounts", "StatsExactThroughTransitions",
		"SearchIDPrefix", "SearchManyProviderIDs", "PurgeErasesPayload", "TransferCopiesEverything",
		"WithinCommitsTogether", "AttemptRounds", "FailuresGrouped", "ListFilters")
}
