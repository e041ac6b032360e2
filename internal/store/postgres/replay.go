package postgres

import (
	"context"
	"fmt"
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
// commits, so delivery starts before the replay ends. Without
// req.Progress, two stretches of the selection are re-armed at once, each
// by a server process of its own, behind a walk that finds where they end;
// with it, batches run one after the other, so that a stop is exact. It
// then writes the audit row.
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

var _ sqlstore.RangeReplayer = replayer{}

// replayer is the sqlstore.RangeReplayer of one replay.
type replayer struct {
	s   *Store
	req store.ReplayRequest
}

// ReplayBatch counts, or re-arms, a batch in one statement. A batch
// that re-arms commits without waiting for the WAL flush (the audit row's
// commit, which waits, flushes every batch before Replay returns) and
// notifies the destinations it re-armed.
func (r replayer) ReplayBatch(ctx context.Context, after sqlstore.ReplayKey, n int, dryRun bool) (sqlstore.ReplayBatch, error) {
	w := sqlstore.NewWhere(dialect, after.EventID, after.Destination)
	if err := w.FilterDeliveries(r.req.Filter); err != nil {
		return sqlstore.ReplayBatch{}, err
	}
	return r.batch(ctx, w, w.Arg(n), dryRun)
}

// replayStretches is how many stretches of a replay are re-armed at once:
// each is a transaction of its own that keeps one server process busy.
const replayStretches = 2

// ReplayStretches is how many stretches of a replay may be re-armed at
// once (see sqlstore.RangeReplayer).
func (r replayer) ReplayStretches() int { return replayStretches }

// ReplayRange re-arms the deliveries of the selection after after and up
// to upto (with no upper bound when open) as ReplayBatch does.
func (r replayer) ReplayRange(ctx context.Context, after, upto sqlstore.ReplayKey, open bool) (sqlstore.ReplayBatch, error) {
	w := sqlstore.NewWhere(dialect, after.EventID, after.Destination)
	if err := w.FilterDeliveries(r.req.Filter); err != nil {
		return sqlstore.ReplayBatch{}, err
	}
	if !open {
		w.Add("(d.event_id, d.destination) <= (%s, %s) AND e.id <= %[1]s", upto.EventID, upto.Destination)
	}
	return r.batch(ctx, w, "ALL", false)
}

// batch counts, or re-arms, the deliveries w selects, at most limit (a
// placeholder, or ALL).
func (r replayer) batch(ctx context.Context, w *sqlstore.Where, limit string, dryRun bool) (sqlstore.ReplayBatch, error) {
	var b sqlstore.ReplayBatch
	var (
		selected int64
		dests    []string
	)
	scan := []any{&selected, &b.InFlight, &b.Rearmed, &b.Last.EventID, &b.Last.Destination, &dests}
	if dryRun {
		err := r.s.other.QueryRow(ctx, fmt.Sprintf(replayBatchDry, w.SQL(), limit), w.Args()...).Scan(scan...)
		b.Selected = int(selected)
		return b, err
	}
	now := w.Arg(r.req.Now)
	query := fmt.Sprintf(replayBatchRearm, w.SQL(), limit, now, sqlstore.ReplayStatus(r.req.Filter.Status))
	err := pgx.BeginFunc(ctx, r.s.other, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, asyncCommit); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, query, w.Args()...).Scan(scan...); err != nil {
			return err
		}
		if len(dests) == 0 {
			return nil
		}
		_, err := tx.Exec(ctx, notifyDestinations, dests)
		return err
	})
	b.Selected = int(selected)
	return b, err
}

// ReplayAudit writes the audit row of the replay.
func (r replayer) ReplayAudit(ctx context.Context, res store.ReplayResult) error {
	_, err := r.s.other.Exec(ctx, insertReplay, r.req.Now, r.req.Actor, sqlstore.AuditFilter(r.req.Filter),
		res.Matched, res.Rearmed, res.InFlight, r.req.DryRun)
	return err
}
