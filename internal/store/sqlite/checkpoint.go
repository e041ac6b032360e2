package sqlite

import (
	"context"
	"fmt"
	"time"
)

// checkpointInterval is how often the WAL is checkpointed into the database
// file. A passive checkpoint never blocks the writer; at ingest rates the WAL
// stays a few megabytes between checkpoints.
const checkpointInterval = 250 * time.Millisecond

// WAL size bounds. A passive checkpoint copies frames but cannot reset the
// WAL while a reader still uses it, so under steady reads and writes the
// WAL would only grow. Past restartFrames, a RESTART checkpoint waits (at
// most checkpointBusyMS, holding off new writes meanwhile) for the readers
// to move to the database file, so that the writer starts the WAL over;
// journalSizeLimit then truncates the file SQLite left behind. Once no frame
// has been written for idleTicks ticks, a TRUNCATE checkpoint empties it.
const (
	restartFrames    = 8192 // 32 MiB of 4 KiB pages
	journalSizeLimit = 64 << 20
	checkpointBusyMS = 200
	idleTicks        = 4
)

// Checkpoint modes, PRAGMA wal_checkpoint's argument.
const (
	checkpointPassive  = "PASSIVE"
	checkpointRestart  = "RESTART"
	checkpointTruncate = "TRUNCATE"
)

// walState is what a checkpoint reports: whether it was blocked, the
// frames in the WAL and the frames copied into the database.
type walState struct {
	busy, frames, copied int64
}

// runCheckpoints checkpoints the WAL in the background until Close.
func (s *Store) runCheckpoints() {
	defer close(s.checkpointsDone)
	t := time.NewTicker(checkpointInterval)
	defer t.Stop()
	var (
		last  walState
		quiet int // ticks since the WAL last grew
	)
	for {
		select {
		case <-s.stopCheckpoints:
			return
		case <-t.C:
		}
		st, err := s.checkpoint(checkpointPassive)
		if err != nil {
			continue
		}
		if st.frames == last.frames {
			quiet++
		} else {
			quiet = 0
		}
		last = st
		switch {
		case st.frames >= restartFrames:
			if st, err = s.checkpoint(checkpointRestart); err == nil && st.busy != 0 {
				s.logger.Debug("write-ahead log still in use by a reader", "frames", st.frames)
			}
		case quiet >= idleTicks && st.frames > 0:
			_, _ = s.checkpoint(checkpointTruncate)
		}
	}
}

// checkpoint runs a checkpoint of the given mode and reports the WAL's
// state after it.
func (s *Store) checkpoint(mode string) (walState, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var st walState
	q := fmt.Sprintf("PRAGMA wal_checkpoint(%s)", mode)
	if err := s.checkpointer.QueryRowContext(ctx, q).Scan(&st.busy, &st.frames, &st.copied); err != nil {
		s.logger.Warn("checkpoint write-ahead log", "mode", mode, "error", err)
		return st, err
	}
	return st, nil
}
