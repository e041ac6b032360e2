package postgres

import (
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hookrelay/hookrelay/internal/store"
)

// SetReplayBatch sets how many deliveries one transaction of s's replays
// re-arms: the conformance suite makes it small, so that every replay it
// runs spans several batches.
func SetReplayBatch(s *Store, n int) {
	s.replayBatch = n
	s.Ops = s.newOps()
}

// Pool returns the pool s uses for everything but Ingest.
func (s *Store) Pool() *pgxpool.Pool { return s.other }

// Qualify returns query with hookrelay.NAME naming s's tables.
func (s *Store) Qualify(query string) string { return s.sql.SQL(query) }

// PartitionsEnv names the period the package's tests open their stores
// with ("daily" or "hourly"; empty or unset: unpartitioned), so that the
// whole package runs on a partitioned event log too:
// HOOKRELAY_TEST_PARTITIONS=daily go test ./internal/store/postgres/.
const PartitionsEnv = "HOOKRELAY_TEST_PARTITIONS"

// WithTestPartitions returns o with the period of PartitionsEnv, unless o sets
// one.
func WithTestPartitions(o Options) Options {
	if o.Partitions == "" {
		o.Partitions = store.PartitionPeriod(os.Getenv(PartitionsEnv))
	}
	return o
}
