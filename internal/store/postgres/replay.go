package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// replayBatch is, by default, how many deliveries one transaction of a replay
// re-arms.
const replayBatch = 10_000

// Replay re-arms the deliveries of the events req.Filter selects (of its
// Destination and in its Status when set) in batches (see
// sqlstore.RunReplay), each a transaction of its own: every one not
// processing becomes pending, due at req.Now (the current time when
// zero), with attempts 0, replay_count + 1, no lease and no finished_at,
// and its last error and status code cleared — they belong to the run
// the replay supersedes; the attempts table keeps them. A batch that
// re-arms rows notifies the listeners of their destinations as it
// commits, so delivery starts before the replay ends. It then writes the
// audit row.
//
// InFlight counts the selected deliveries that were processing as their
// batch was re-armed, and Matched = Rearmed + InFlight. (A delivery a
// claimer takes while the batch's statement runs is left alone and
// counted in neither.) A dry run counts the same way, changes nothing,
// and still writes its audit row. A bad glob or status is
// store.ErrBadFilter.
func (s *Store) Replay(ctx context.Context, req store.ReplayRequest) (store.ReplayResult, error) {
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	if err := sqlstore.NewWhere(dialect).FilterDeliveries(req.Filter); err != nil {
		return store.ReplayResult{}, fmt.Errorf("replay: %w", err)
	}
	res, err := sqlstore.RunReplay(ctx, replayer{s: s, req: req}, req, s.replayBatch)
	if err != nil {
		return res, fmt.Errorf("replay: %w", s.mapErr(ctx, err))
	}
	return res, nil
}

// replayer is the sqlstore.ReplayDriver of one replay.
type replayer struct {
	s   *Store
	req store.ReplayRequest
}

// ReplayPage reads a batch of the selection.
func (r replayer) ReplayPage(ctx context.Context, after sqlstore.ReplayKey, n int) ([]sqlstore.ReplayRow, error) {
	w := sqlstore.NewWhere(dialect, after.EventID, after.Destination)
	if err := w.FilterDeliveries(r.req.Filter); err != nil {
		return nil, err
	}
	rows, err := r.s.other.Query(ctx, fmt.Sprintf(replayPage, w.SQL(), w.Arg(n)), w.Args()...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (sqlstore.ReplayRow, error) {
		var r sqlstore.ReplayRow
		err := row.Scan(&r.ID, &r.Key.EventID, &r.Key.Destination, &r.Status)
		return r, err
	})
}

// ReplayRearm counts and re-arms a batch in one statement, and notifies
// the destinations re-armed in its transaction.
func (r replayer) ReplayRearm(ctx context.Context, ids []int64, status store.DeliveryStatus) (rearmed, inFlight int64, err error) {
	ids = slices.Sorted(slices.Values(ids))
	err = pgx.BeginFunc(ctx, r.s.other, func(tx pgx.Tx) error {
		var dests []string
		q := fmt.Sprintf(replayRearm, sqlstore.ReplayStatus(status))
		if err := tx.QueryRow(ctx, q, ids, r.req.Now).Scan(&rearmed, &inFlight, &dests); err != nil {
			return err
		}
		if len(dests) == 0 {
			return nil
		}
		_, err := tx.Exec(ctx, notifyDestinations, dests)
		return err
	})
	return rearmed, inFlight, err
}

// ReplayAudit writes the audit row of the replay.
func (r replayer) ReplayAudit(ctx context.Context, res store.ReplayResult) error {
	_, err := r.s.other.Exec(ctx, insertReplay, r.req.Now, r.req.Actor, sqlstore.AuditFilter(r.req.Filter),
		res.Matched, res.Rearmed, res.InFlight, r.req.DryRun)
	return err
}
