package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// CompleteDelivery records c's attempt and sets the delivery's new status
// in one statement, provided the delivery is still processing under c's
// lease token; otherwise it returns an error wrapping store.ErrLeaseLost
// and records nothing. A failed delivery becomes due at c.NextAttemptAt
// (c.Now when zero); a done, skipped or dead one is finished at c.Now
// (the current time when zero). Attempts is left as the claim counted it.
// The attempt's snippet is cut to 1 KiB and its duration to whole
// milliseconds; a zero AttemptedAt is c.Now.
func (s *Store) CompleteDelivery(ctx context.Context, c store.Completion) error {
	now := c.Now
	if now.IsZero() {
		now = time.Now()
	}
	var next, finished any
	switch c.Status {
	case store.StatusFailed:
		next = now
		if !c.NextAttemptAt.IsZero() {
			next = c.NextAttemptAt
		}
	case store.StatusDone, store.StatusSkipped, store.StatusDead:
		finished = now
	default:
		return fmt.Errorf("complete delivery %d: status %q is not an outcome", c.DeliveryID, c.Status)
	}
	a := c.Attempt
	if a.AttemptedAt.IsZero() {
		a.AttemptedAt = now
	}
	snippet := sqlstore.Snippet(a.ResponseSnippet)

	// The outcome commits without waiting for the WAL flush: losing it in
	// a server crash only hands the delivery out again when its lease
	// runs out, which at-least-once delivery allows, while waiting for the
	// flush made outcomes the limit of a drain. Both statements run as one
	// implicit transaction, to which the setting is local.
	b := &pgx.Batch{}
	b.Queue(asyncCommit)
	b.Queue(completeDelivery,
		c.DeliveryID, c.LeaseToken, string(c.Status), next, a.Error, a.StatusCode, finished, now,
		a.AttemptedAt, a.Duration.Milliseconds(), snippet,
	)
	br := s.other.SendBatch(ctx, b)
	var attemptID int64
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&attemptID)
	}
	if cerr := br.Close(); err == nil && cerr != nil {
		err = cerr
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("complete delivery %d: %w", c.DeliveryID, store.ErrLeaseLost)
	case err != nil:
		return fmt.Errorf("complete delivery %d: %w", c.DeliveryID, s.mapErr(ctx, err))
	}
	return nil
}

// ReleaseDeliveries hands back the deliveries of rs still held under
// their lease tokens, uncounting the attempt their claim counted: pending
// when that leaves no attempt, else failed. Each is due at the earlier of
// its due time before the claim and the current time, so that it is due
// now by the claimer's clock as by this process's. Others are left alone.
func (s *Store) ReleaseDeliveries(ctx context.Context, rs []store.Release) error {
	if len(rs) == 0 {
		return nil
	}
	ids, tokens := sqlstore.SplitReleases(rs)
	if _, err := s.other.Exec(ctx, releaseDeliveries, ids, tokens, time.Now()); err != nil {
		return fmt.Errorf("release deliveries: %w", s.mapErr(ctx, err))
	}
	return nil
}
