package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// leaseHeld selects delivery ?1 while it is processing under lease token
// ?2. Run inside the writer's transaction (BEGIN IMMEDIATE), which holds
// the database's write lock, no claim can lease the row again before the
// transaction ends.
const leaseHeld = `SELECT 1 FROM hookrelay.deliveries WHERE id = ?1 AND status = 'processing' AND lease_token = ?2`

var _ store.TxCompleter = (*Store)(nil)

// CompleteWithin runs fn in a transaction of the writer and records c in
// it, as store.TxCompleter says. fn receives the *sql.Tx. The writer is
// the only connection that writes, so while fn runs every other write of
// this store — ingest, claims, outcomes — waits for it; they resume, in
// turn, once the transaction ends. The commit is durable against a crash
// of the process; an operating-system crash may lose the last ones, fn's
// writes together with their outcome, never one without the other.
func (s *Store) CompleteWithin(ctx context.Context, c store.Completion, fn store.WithinFunc) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("complete delivery %d within: %w", c.DeliveryID, err)
	}
	defer release()
	// Prepared before the transaction: preparing takes the writer too.
	if err := s.prepareOutcomes(ctx); err != nil {
		return fmt.Errorf("complete delivery %d within: %w", c.DeliveryID, mapErr(ctx, err))
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("complete delivery %d within: begin: %w", c.DeliveryID, mapErr(ctx, err))
	}
	defer tx.Rollback()
	var one int
	switch err := tx.QueryRowContext(ctx, s.rewriter.SQL(leaseHeld), c.DeliveryID, c.LeaseToken).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("complete delivery %d within: %w", c.DeliveryID, store.ErrLeaseLost)
	case err != nil:
		return fmt.Errorf("complete delivery %d within: %w", c.DeliveryID, mapErr(ctx, err))
	}
	if err := fn(ctx, tx, &c); err != nil {
		return err
	}
	row, err := sqlstore.WithinRow(c, time.Now(), s.payloads)
	if err != nil {
		return err
	}
	recorded := make([]bool, 1)
	switch err := s.recordOutcomes(ctx, tx, []sqlstore.CompletionRow{row}, recorded); {
	case err != nil:
		return fmt.Errorf("complete delivery %d within: %w", c.DeliveryID, mapErr(ctx, err))
	case !recorded[0]:
		return fmt.Errorf("complete delivery %d within: %w", c.DeliveryID, store.ErrLeaseLost)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("complete delivery %d within: commit: %w", c.DeliveryID, mapErr(ctx, err))
	}
	return nil
}
