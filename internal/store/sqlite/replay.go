package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// replayBatch is, by default, how many deliveries one transaction of a replay
// re-arms: each holds the writer for some tens of milliseconds, so an
// ingest commit waits at most about that long behind one.
const replayBatch = 500

// Replay re-arms the deliveries of the events req.Filter selects (of its
// Destination and in its Status when set) in batches (see
// sqlstore.RunReplay), each an immediate transaction of its own: every
// one not processing becomes pending, due at req.Now (the current time
// when zero), attempts 0, replay_count + 1, no lease and no finished_at,
// its last error and status code cleared (they belong to the run the
// replay supersedes; the attempts table keeps them). The batches are
// read from the read pool, so only the re-arming holds the writer. It
// then writes the audit row. Matched = Rearmed + InFlight. A dry run
// only counts and writes its audit row. A bad glob or status is
// store.ErrBadFilter.
func (s *Store) Replay(ctx context.Context, req store.ReplayRequest) (store.ReplayResult, error) {
	if err := s.enter(); err != nil {
		return store.ReplayResult{}, fmt.Errorf("replay: %w", err)
	}
	defer s.mu.RUnlock()
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	if err := sqlstore.NewWhere(dialect).FilterDeliveries(req.Filter); err != nil {
		return store.ReplayResult{}, fmt.Errorf("replay: %w", err)
	}
	res, err := sqlstore.RunReplay(ctx, replayer{s: s, req: req}, req, s.replayBatch)
	if err != nil {
		return res, fmt.Errorf("replay: %w", mapErr(ctx, err))
	}
	return res, nil
}

// replayer is the sqlstore.ReplayDriver of one replay.
type replayer struct {
	s   *Store
	req store.ReplayRequest
}

// ReplayPage reads a batch of the selection from the read pool.
func (r replayer) ReplayPage(ctx context.Context, after sqlstore.ReplayKey, n int) ([]sqlstore.ReplayRow, error) {
	w := sqlstore.NewWhere(dialect, after.EventID, after.Destination)
	if err := w.FilterDeliveries(r.req.Filter); err != nil {
		return nil, err
	}
	rows, err := r.s.reader.QueryContext(ctx, fmt.Sprintf(replayPage, w.SQL(), w.Arg(n)), w.Args()...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sqlstore.ReplayRow
	for rows.Next() {
		var row sqlstore.ReplayRow
		if err := rows.Scan(&row.ID, &row.Key.EventID, &row.Key.Destination, &row.Status); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// ReplayRearm counts and re-arms a batch in one immediate transaction.
func (r replayer) ReplayRearm(ctx context.Context, ids []int64, status store.DeliveryStatus) (rearmed, inFlight int64, err error) {
	tx, err := r.s.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	cond, list := sqlstore.ReplayStatus(status), jsonArray(ids)
	if err := tx.QueryRowContext(ctx, fmt.Sprintf(replayBusy, cond), list).Scan(&inFlight); err != nil {
		return 0, 0, fmt.Errorf("count in flight: %w", err)
	}
	res, err := tx.ExecContext(ctx, fmt.Sprintf(replayRearm, cond), list, micros(r.req.Now))
	if err != nil {
		return 0, 0, err
	}
	if rearmed, err = res.RowsAffected(); err != nil {
		return 0, 0, err
	}
	return rearmed, inFlight, tx.Commit()
}

// ReplayAudit writes the audit row of the replay.
func (r replayer) ReplayAudit(ctx context.Context, res store.ReplayResult) error {
	_, err := r.s.writer.ExecContext(ctx, insertReplay, micros(r.req.Now), r.req.Actor, sqlstore.AuditFilter(r.req.Filter),
		res.Matched, res.Rearmed, res.InFlight, r.req.DryRun)
	return err
}
