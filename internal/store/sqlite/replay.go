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
	release, err := s.enter()
	if err != nil {
		return store.ReplayResult{}, fmt.Errorf("replay: %w", err)
	}
	defer release()
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

// ReplayBatch reads a batch of the selection from the read pool and,
// unless dryRun, re-arms it on the writer.
func (r replayer) ReplayBatch(ctx context.Context, after sqlstore.ReplayKey, n int, dryRun bool) (sqlstore.ReplayBatch, error) {
	var b sqlstore.ReplayBatch
	ids, err := r.page(ctx, after, n, &b)
	if err != nil || dryRun || len(ids) == 0 {
		return b, err
	}
	b.InFlight = 0 // counted again as the batch is written
	err = r.rearm(ctx, ids, &b)
	return b, err
}

// page reads a batch of the selection into b: how many, the last key,
// and those processing; it returns their ids.
func (r replayer) page(ctx context.Context, after sqlstore.ReplayKey, n int, b *sqlstore.ReplayBatch) ([]int64, error) {
	w := sqlstore.NewWhere(dialect, after.EventID, after.Destination)
	if err := w.FilterDeliveries(r.req.Filter); err != nil {
		return nil, err
	}
	rows, err := r.s.reader.QueryContext(ctx, fmt.Sprintf(replayPage, w.SQL(), w.Arg(n)), w.Args()...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var (
			id     int64
			status string
		)
		if err := rows.Scan(&id, &b.Last.EventID, &b.Last.Destination, &status); err != nil {
			return nil, err
		}
		if store.DeliveryStatus(status) == store.StatusProcessing {
			b.InFlight++
		}
		ids = append(ids, id)
	}
	b.Selected = len(ids)
	return ids, rows.Err()
}

// rearm counts the processing deliveries of ids and re-arms the others
// in one immediate transaction.
func (r replayer) rearm(ctx context.Context, ids []int64, b *sqlstore.ReplayBatch) error {
	tx, err := r.s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	cond, list := sqlstore.ReplayStatus(r.req.Filter.Status), jsonArray(ids)
	if err := tx.QueryRowContext(ctx, fmt.Sprintf(replayBusy, cond), list).Scan(&b.InFlight); err != nil {
		return fmt.Errorf("count in flight: %w", err)
	}
	res, err := tx.ExecContext(ctx, fmt.Sprintf(replayRearm, cond), list, micros(r.req.Now))
	if err != nil {
		return err
	}
	if b.Rearmed, err = res.RowsAffected(); err != nil {
		return err
	}
	return tx.Commit()
}

// ReplayAudit writes the audit row of the replay.
func (r replayer) ReplayAudit(ctx context.Context, res store.ReplayResult) error {
	_, err := r.s.writer.ExecContext(ctx, insertReplay, micros(r.req.Now), r.req.Actor, sqlstore.AuditFilter(r.req.Filter),
		res.Matched, res.Rearmed, res.InFlight, r.req.DryRun)
	return err
}
