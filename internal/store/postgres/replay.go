package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// Replay re-arms, in one statement, the deliveries of the events
// req.Filter selects (of its Destination and in its Status when set):
// every one not processing becomes pending, due at req.Now (the current
// time when zero), with attempts 0, replay_count + 1, no lease and no
// finished_at, and its last error and status code cleared — they belong
// to the run the replay supersedes; the attempts table keeps them. The
// same statement writes the audit row, and when rows were re-armed the
// transaction notifies the listeners of their destinations.
//
// InFlight counts the selected deliveries that were processing as the
// statement began, and Matched = Rearmed + InFlight. (A delivery a
// claimer takes while the statement runs is left alone and counted in
// neither.) A dry run counts the same way, changes nothing, and still
// writes its audit row. A bad glob or status is store.ErrBadFilter.
func (s *Store) Replay(ctx context.Context, req store.ReplayRequest) (store.ReplayResult, error) {
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	query, args, err := replayQuery(req, now)
	if err != nil {
		return store.ReplayResult{}, fmt.Errorf("replay: %w", err)
	}
	var res store.ReplayResult
	err = pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, replayWorkMem); err != nil {
			return err
		}
		var dests []string
		if err := tx.QueryRow(ctx, query, args...).Scan(&res.Matched, &res.Rearmed, &res.InFlight, &dests); err != nil {
			return err
		}
		if len(dests) == 0 {
			return nil
		}
		_, err := tx.Exec(ctx, notifyDestinations, dests)
		return err
	})
	if err != nil {
		return store.ReplayResult{}, fmt.Errorf("replay: %w", s.mapErr(ctx, err))
	}
	return res, nil
}

// replayQuery returns the statement of req: replaySet or replayDry with
// the selection of req.Filter spliced in.
func replayQuery(req store.ReplayRequest, now time.Time) (string, []any, error) {
	f := req.Filter
	w := sqlstore.NewWhere(dialect, now, req.Actor, sqlstore.AuditFilter(f))
	if err := w.FilterDeliveries(f); err != nil {
		return "", nil, err
	}
	template := replaySet
	if req.DryRun {
		template = replayDry
	}
	return fmt.Sprintf(template, w.SQL()), w.Args(), nil
}
