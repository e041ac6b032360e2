package sqlite

// SetReplayBatch sets how many deliveries one transaction of s's replays
// re-arms: the conformance suite makes it small, so that every replay it
// runs spans several batches.
func SetReplayBatch(s *Store, n int) {
	s.replayBatch = n
	s.Ops = s.newOps()
}
