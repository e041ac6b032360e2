package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// CompleteDelivery records c's attempt and sets the delivery's new status
// in one transaction, provided the delivery is still processing under c's
// lease token; otherwise it returns an error wrapping store.ErrLeaseLost
// and records nothing. A failed delivery becomes due at c.NextAttemptAt
// (c.Now when zero); a done, skipped or dead one is finished at c.Now
// (the current time when zero). Attempts is left as the claim counted it.
// The attempt's snippet is cut to 1 KiB and its duration to whole
// milliseconds; a zero AttemptedAt is c.Now.
func (s *Store) CompleteDelivery(ctx context.Context, c store.Completion) error {
	if err := s.enter(); err != nil {
		return fmt.Errorf("complete delivery %d: %w", c.DeliveryID, err)
	}
	defer s.mu.RUnlock()
	if c.Now.IsZero() {
		c.Now = time.Now()
	}
	var next, finished any
	switch c.Status {
	case store.StatusFailed:
		next = micros(c.Now)
		if !c.NextAttemptAt.IsZero() {
			next = micros(c.NextAttemptAt)
		}
	case store.StatusDone, store.StatusSkipped, store.StatusDead:
		finished = micros(c.Now)
	default:
		return fmt.Errorf("complete delivery %d: status %q is not an outcome", c.DeliveryID, c.Status)
	}
	if err := s.complete(ctx, c, next, finished); err != nil {
		return fmt.Errorf("complete delivery %d: %w", c.DeliveryID, mapErr(ctx, err))
	}
	return nil
}

func (s *Store) complete(ctx context.Context, c store.Completion, next, finished any) error {
	st, err := s.prepared(ctx)
	if err != nil {
		return err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	a := c.Attempt
	res, err := tx.StmtContext(ctx, st.completeDelivery).ExecContext(ctx,
		c.DeliveryID, c.LeaseToken, string(c.Status), next, a.Error, a.StatusCode, finished, micros(c.Now))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err == nil {
			err = store.ErrLeaseLost
		}
		return err
	}
	if a.AttemptedAt.IsZero() {
		a.AttemptedAt = c.Now
	}
	snippet := sqlstore.Snippet(a.ResponseSnippet)
	if _, err := tx.StmtContext(ctx, st.insertAttempt).ExecContext(ctx,
		c.DeliveryID, micros(a.AttemptedAt), a.Duration.Milliseconds(), a.StatusCode, a.Error, snippet); err != nil {
		return fmt.Errorf("insert attempt: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// ReleaseDeliveries hands back the deliveries of rs still held under
// their lease tokens, uncounting the attempt their claim counted: pending
// when that leaves no attempt, else failed. Each is due at the earlier of
// its due time before the claim and the current time, so that it is due
// now by the claimer's clock as by this process's. Others are left alone.
func (s *Store) ReleaseDeliveries(ctx context.Context, rs []store.Release) error {
	if err := s.enter(); err != nil {
		return fmt.Errorf("release deliveries: %w", err)
	}
	defer s.mu.RUnlock()
	if len(rs) == 0 {
		return nil
	}
	ids, tokens := sqlstore.SplitReleases(rs)
	st, err := s.prepared(ctx)
	if err != nil {
		return fmt.Errorf("release deliveries: %w", err)
	}
	if _, err := st.releaseDeliveries.ExecContext(ctx, leasePairs(ids, tokens), micros(time.Now())); err != nil {
		return fmt.Errorf("release deliveries: %w", mapErr(ctx, err))
	}
	return nil
}
