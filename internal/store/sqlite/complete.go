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
	return sqlstore.CompleteOne(ctx, c, s.CompleteDeliveries)
}

// CompleteDeliveries records the outcomes of cs, each as CompleteDelivery
// would, in one transaction on the writer, and reports which were
// recorded: those still processing under their lease token, the first
// time the batch names them.
func (s *Store) CompleteDeliveries(ctx context.Context, cs []store.Completion) ([]bool, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("complete %d deliveries: %w", len(cs), err)
	}
	defer release()
	recorded := make([]bool, len(cs))
	if len(cs) == 0 {
		return recorded, nil
	}
	rows, err := sqlstore.CompletionRows(cs, time.Now(), s.payloads)
	if err != nil {
		return nil, err
	}
	if err := s.complete(ctx, rows, recorded); err != nil {
		return nil, fmt.Errorf("complete %d deliveries: %w", len(cs), mapErr(ctx, err))
	}
	return recorded, nil
}

// complete writes rows in one transaction and marks in recorded those
// whose lease held.
func (s *Store) complete(ctx context.Context, rows []sqlstore.CompletionRow, recorded []bool) error {
	st, err := s.prepared(ctx)
	if err != nil {
		return err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	update, insert := tx.StmtContext(ctx, st.completeDelivery), tx.StmtContext(ctx, st.insertAttempt)
	for i, r := range rows {
		if r.Repeat {
			continue
		}
		ok, err := recordCompletion(ctx, update, insert, r)
		if err != nil {
			return err
		}
		recorded[i] = ok
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
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("release deliveries: %w", err)
	}
	defer release()
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
