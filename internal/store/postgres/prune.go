package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// Prune deletes up to req.Limit finished events past their retention,
// oldest first, with their deliveries and attempts, and returns how many
// it deleted: events received before DoneBefore whose deliveries are all
// done or skipped (or that have none), and events received before
// DeadBefore whose deliveries are all final with at least one dead. A
// zero bound prunes nothing by its rule; a Limit below 1 deletes nothing.
//
// It never deletes an event with a live delivery, whatever runs
// alongside. In one transaction it locks the candidate events (skipping
// any another transaction holds), so that no delivery can be added to
// them; then, in a later statement whose snapshot sees every delivery
// added before, locks their deliveries (skipping any another transaction
// holds, such as a replay re-arming them) and reads their latest
// statuses; and deletes only the events whose deliveries were all locked
// and still qualify. Nothing waits on another writer, so it cannot
// deadlock with a replay or a claim.
func (s *Store) Prune(ctx context.Context, req store.PruneRequest) (int64, error) {
	bound, boundID, ok := sqlstore.PruneBound(req)
	if !ok {
		return 0, nil
	}
	var deleted int64
	err := pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, pruneCandidates, boundID, bound, nullTime(req.DeadBefore), nullTime(req.DoneBefore), req.Limit)
		if err != nil {
			return err
		}
		received := map[string]time.Time{}
		var (
			id string
			at time.Time
		)
		if _, err := pgx.ForEachRow(rows, []any{&id, &at}, func() error {
			received[id] = at
			return nil
		}); err != nil || len(received) == 0 {
			return err
		}
		ids, err := stillPrunable(ctx, tx, received, req)
		if err != nil || len(ids) == 0 {
			return err
		}
		tag, err := tx.Exec(ctx, pruneEvents, ids)
		deleted = tag.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune: %w", s.mapErr(ctx, err))
	}
	return deleted, nil
}

// stillPrunable locks the deliveries of the candidate events (by id, with
// their received_at) and returns the ids of those that still qualify.
func stillPrunable(ctx context.Context, tx pgx.Tx, received map[string]time.Time, req store.PruneRequest) ([]string, error) {
	ids := make([]string, 0, len(received))
	for id := range received {
		ids = append(ids, id)
	}
	rows, err := tx.Query(ctx, pruneCheck, ids)
	if err != nil {
		return nil, err
	}
	type check struct{ total, held, live, dead int64 }
	checks := map[string]check{}
	var (
		id string
		c  check
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &c.total, &c.held, &c.live, &c.dead}, func() error {
		checks[id] = c
		return nil
	}); err != nil {
		return nil, err
	}
	ids = ids[:0]
	for id, at := range received {
		c := checks[id] // zero: the event has no delivery
		before := req.DoneBefore
		if c.dead > 0 {
			before = req.DeadBefore
		}
		if c.held == c.total && c.live == 0 && at.Before(before) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
