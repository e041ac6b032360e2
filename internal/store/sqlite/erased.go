package sqlite

import (
	"context"
	"fmt"
	"time"
)

// clearErasedWait bounds how long ClearErased tries to truncate the
// write-ahead log while readers still use it; each try waits up to
// checkpointBusyMS, holding off new writes meanwhile.
const clearErasedWait = 5 * time.Second

// truncateWAL is what an operator runs, with the sqlite3 shell, when
// ClearErased could not truncate the log itself.
const truncateWAL = "PRAGMA wal_checkpoint(TRUNCATE);"

// ClearErased copies the write-ahead log into the database file and
// truncates it to nothing: the writer zeroes what a purge deletes
// (secure_delete), but the log still holds the page images written before
// the purge. When readers keep the log in use past clearErasedWait, the
// truncation is left to the operator and its statement returned.
func (s *Store) ClearErased(ctx context.Context) (string, error) {
	release, err := s.enter()
	if err != nil {
		return "", fmt.Errorf("clear erased bytes: %w", err)
	}
	defer release()
	deadline := time.Now().Add(clearErasedWait)
	for {
		st, err := s.checkpoint(checkpointTruncate)
		if err != nil {
			return "", fmt.Errorf("clear erased bytes: truncate write-ahead log: %w", err)
		}
		if st.busy == 0 {
			return "", nil
		}
		if time.Now().After(deadline) {
			s.logger.Warn("write-ahead log still in use after a purge: truncate it when readers finish", "frames", st.frames)
			return truncateWAL, nil
		}
		select {
		case <-ctx.Done():
			return truncateWAL, fmt.Errorf("clear erased bytes: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
