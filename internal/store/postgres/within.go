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

// lockLeased locks delivery $1 while it is processing under lease token
// $2. Claims pick their rows FOR UPDATE SKIP LOCKED, so until the
// transaction that holds this lock ends, no claimer leases the row again,
// even once its lease has run out: the holder's outcome cannot be lost to
// a second claimer, nor its writes repeated by one.
const lockLeased = `SELECT 1 FROM hookrelay.deliveries WHERE id = $1 AND status = 'processing' AND lease_token = $2 FOR UPDATE`

var _ store.TxCompleter = (*Store)(nil)

// CompleteWithin runs fn in a transaction on the pool that is not
// reserved for Ingest and records c in it, as store.TxCompleter says. fn
// receives the pgx.Tx. The transaction commits with the server's
// synchronous_commit (on unless the URL or the role says otherwise): its
// writes are as durable as the application's own.
func (s *Store) CompleteWithin(ctx context.Context, c store.Completion, fn store.WithinFunc) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("complete delivery within: %w", err)
	}
	defer release()
	tx, err := s.other.Begin(ctx)
	if err != nil {
		return fmt.Errorf("complete delivery %d within: begin: %w", c.DeliveryID, s.mapErr(ctx, err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var one int
	switch err := tx.QueryRow(ctx, s.sql.SQL(lockLeased), c.DeliveryID, c.LeaseToken).Scan(&one); {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("complete delivery %d within: %w", c.DeliveryID, store.ErrLeaseLost)
	case err != nil:
		return fmt.Errorf("complete delivery %d within: %w", c.DeliveryID, s.mapErr(ctx, err))
	}
	if err := fn(ctx, tx, &c); err != nil {
		return err
	}
	row, err := sqlstore.WithinRow(c, time.Now(), s.payloads)
	if err != nil {
		return err
	}
	var a completionArrays
	a.add(row)
	ids, err := tx.Query(ctx, s.sql.SQL(completeDeliveries), a.args()...)
	if err != nil {
		return fmt.Errorf("complete delivery %d within: %w", c.DeliveryID, s.mapErr(ctx, err))
	}
	got, err := pgx.CollectRows(ids, pgx.RowTo[int64])
	switch {
	case err != nil:
		return fmt.Errorf("complete delivery %d within: %w", c.DeliveryID, s.mapErr(ctx, err))
	case len(got) != 1:
		return fmt.Errorf("complete delivery %d within: %w", c.DeliveryID, store.ErrLeaseLost)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("complete delivery %d within: commit: %w", c.DeliveryID, s.mapErr(ctx, err))
	}
	return nil
}
