package postgres

import "github.com/jackc/pgx/v5/pgxpool"

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
