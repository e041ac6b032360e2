package sqlite

import (
	"context"
	"database/sql"
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
	settled := s.leases.Take()
	if err := s.complete(ctx, rows, recorded, settled); err != nil {
		s.leases.Untake(settled)
		return nil, fmt.Errorf("complete %d deliveries: %w", len(cs), mapErr(ctx, err))
	}
	s.leases.Settle(sqlstore.DeferredIDs(rows))
	return recorded, nil
}

// complete writes rows in one transaction and marks in recorded those
// whose lease held; it deletes the rows settled of delivery_leases, the
// batches whose deliveries are all settled (sqlstore.LeaseBook).
func (s *Store) complete(ctx context.Context, rows []sqlstore.CompletionRow, recorded []bool, settled []int64) error {
	if err := s.prepareOutcomes(ctx); err != nil {
		return err
	}
	return s.inWriteTx(ctx, func(tx *sql.Tx, st *writeStmts) error {
		if err := s.recordOutcomes(ctx, tx, rows, recorded); err != nil {
			return err
		}
		return deleteLeases(ctx, tx, st, settled)
	})
}

// prepareOutcomes prepares the statements recordOutcomes runs. It must run
// outside a transaction: the writer has a single connection.
func (s *Store) prepareOutcomes(ctx context.Context) error {
	return s.prepareMultiRows(ctx, &s.completeDeliveries, &s.insertDeferred, &s.insertAttempts)
}

// recordOutcomes writes rows in tx — the deferred deliveries' whole rows
// with multi-row inserts, the other outcomes with multi-row updates, then
// the attempts of those that keep one, in the order of rows, with
// multi-row inserts — and marks in recorded those whose lease held.
// Repeats are left out. prepareOutcomes must have succeeded.
func (s *Store) recordOutcomes(ctx context.Context, tx *sql.Tx, rows []sqlstore.CompletionRow, recorded []bool) error {
	// Deferred deliveries are inserted first: most have no row yet, and
	// an update that looked for them first found none, at a sixth of the
	// cost of a batch in BenchmarkLeased. One whose row a sweep wrote
	// meanwhile is not inserted and is updated under its token.
	held := make(map[int64]bool, len(rows))
	if err := s.insertDeferredOutcomes(ctx, tx, rows, held); err != nil {
		return err
	}
	if err := s.updateOutcomes(ctx, tx, rows, held); err != nil {
		return err
	}
	var attempts []any
	for i, r := range rows {
		if r.Repeat || !held[r.DeliveryID] {
			continue
		}
		recorded[i] = true
		if !r.KeepsAttempt() {
			continue
		}
		a := r.Attempt
		attempts = append(attempts, r.DeliveryID, micros(a.AttemptedAt), a.Duration.Milliseconds(), a.StatusCode, a.Error,
			r.Snippet, r.KeyID, r.Headers, r.DeliveryID)
	}
	if err := s.execChunks(ctx, tx, &s.insertAttempts, 9, attempts); err != nil {
		return fmt.Errorf("insert attempts: %w", err)
	}
	return nil
}

// updateOutcomes sets the outcomes of rows, but for repeats and those
// already in held, and adds to held the deliveries whose lease held.
func (s *Store) updateOutcomes(ctx context.Context, tx *sql.Tx, rows []sqlstore.CompletionRow, held map[int64]bool) error {
	const cols = 11
	args := make([]any, 0, len(rows)*cols)
	for _, r := range rows {
		if r.Repeat || held[r.DeliveryID] {
			continue
		}
		a := r.Attempt
		args = append(args, r.DeliveryID, r.LeaseToken, string(r.Status), optMicros(r.Next), a.Error, a.StatusCode,
			optMicros(r.Finished), micros(r.Now), string(r.Kind), micros(a.AttemptedAt), a.Duration.Milliseconds())
	}
	if err := s.queryChunks(ctx, tx, &s.completeDeliveries, cols, args, markIDs(held)); err != nil {
		return fmt.Errorf("update outcomes: %w", err)
	}
	return nil
}

// insertDeferredOutcomes inserts whole, with their outcomes, the deferred
// deliveries of rows that have no row yet, but for repeats, and adds
// those it inserted to held.
func (s *Store) insertDeferredOutcomes(ctx context.Context, tx *sql.Tx, rows []sqlstore.CompletionRow, held map[int64]bool) error {
	const cols = 12
	var args []any
	for _, r := range rows {
		if r.Repeat || !r.WritesDeferred() {
			continue
		}
		a := r.Attempt
		args = append(args, r.DeliveryID, r.EventID, r.Destination, string(r.Status), optMicros(r.Next), a.Error,
			a.StatusCode, string(r.Kind), optMicros(r.Finished), micros(a.AttemptedAt), a.Duration.Milliseconds(), micros(r.Now))
	}
	err := s.queryChunks(ctx, tx, &s.insertDeferred, cols, args, markIDs(held))
	if err != nil {
		return fmt.Errorf("insert deferred outcomes: %w", err)
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
	now := time.Now()
	deferred := sqlstore.DeferredReleases(rs, now)
	if err := s.release(ctx, st, leasePairs(ids, tokens), deferred, now); err != nil {
		return fmt.Errorf("release deliveries: %w", mapErr(ctx, err))
	}
	s.leases.Settle(deferred.IDs)
	return nil
}

// release hands back the deliveries of the JSON array pairs, after writing
// the rows of the deferred ones, in one transaction.
func (s *Store) release(ctx context.Context, st *writeStmts, pairs string, deferred sqlstore.Deferred, now time.Time) error {
	if len(deferred.IDs) == 0 {
		_, err := st.releaseDeliveries.ExecContext(ctx, pairs, micros(now))
		return err
	}
	return s.inWriteTx(ctx, func(tx *sql.Tx, st *writeStmts) error {
		if err := writeDeferredRows(ctx, tx, st, deferredList(deferred), now); err != nil {
			return err
		}
		_, err := tx.StmtContext(ctx, st.releaseDeliveries).ExecContext(ctx, pairs, micros(now))
		return err
	})
}

// markIDs returns a row reader that sets held for the id each row holds.
func markIDs(held map[int64]bool) func(*sql.Rows) error {
	return func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		held[id] = true
		return nil
	}
}
