package sqlite

import (
	"context"
	"time"
)

// checkpointInterval is how often the WAL is checkpointed into the database
// file. A passive checkpoint never blocks the writer; at ingest rates the WAL
// stays a few megabytes between checkpoints.
const checkpointInterval = 250 * time.Millisecond

// runCheckpoints checkpoints the WAL in the background until Close.
func (s *Store) runCheckpoints() {
	defer close(s.checkpointsDone)
	t := time.NewTicker(checkpointInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stopCheckpoints:
			return
		case <-t.C:
			s.checkpoint()
		}
	}
}

// checkpoint copies what the WAL holds into the database file, as far as
// readers allow, without waiting for them.
func (s *Store) checkpoint() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var busy, logFrames, done int64
	err := s.checkpointer.QueryRowContext(ctx, checkpointQuery).Scan(&busy, &logFrames, &done)
	if err != nil {
		s.logger.Warn("checkpoint write-ahead log", "error", err)
	}
}
