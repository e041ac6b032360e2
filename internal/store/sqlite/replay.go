package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// Replay re-arms the deliveries of the events req.Filter selects (of its
// Destination and in its Status when set) in one immediate transaction:
// it counts them, re-arms in one UPDATE every one not processing —
// pending, due at req.Now (the current time when zero), attempts 0,
// replay_count + 1, no lease and no finished_at, its last error and
// status code cleared (they belong to the run the replay supersedes; the
// attempts table keeps them) — and writes the audit row. The writer runs
// it alone, so Matched = Rearmed + InFlight. A dry run only counts and
// writes its audit row. A bad glob or status is store.ErrBadFilter.
func (s *Store) Replay(ctx context.Context, req store.ReplayRequest) (store.ReplayResult, error) {
	if err := s.enter(); err != nil {
		return store.ReplayResult{}, fmt.Errorf("replay: %w", err)
	}
	defer s.mu.RUnlock()
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	w := sqlstore.NewWhere(dialect)
	if err := w.FilterDeliveries(req.Filter); err != nil {
		return store.ReplayResult{}, fmt.Errorf("replay: %w", err)
	}
	res, err := s.replay(ctx, req, fmt.Sprintf(replaySelection, w.SQL()), w.Args())
	if err != nil {
		return store.ReplayResult{}, fmt.Errorf("replay: %w", mapErr(ctx, err))
	}
	return res, nil
}

func (s *Store) replay(ctx context.Context, req store.ReplayRequest, sel string, args []any) (store.ReplayResult, error) {
	var res store.ReplayResult
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return res, err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, fmt.Sprintf(replayCount, sel), args...).Scan(&res.Matched, &res.InFlight); err != nil {
		return res, fmt.Errorf("count: %w", err)
	}
	if !req.DryRun {
		r, err := tx.ExecContext(ctx, fmt.Sprintf(replayRearm, sel), append([]any{micros(req.Now)}, args...)...)
		if err != nil {
			return res, fmt.Errorf("re-arm: %w", err)
		}
		if res.Rearmed, err = r.RowsAffected(); err != nil {
			return res, err
		}
	}
	if err := insertAudit(ctx, tx, req, res); err != nil {
		return res, err
	}
	if err := tx.Commit(); err != nil {
		return res, fmt.Errorf("commit: %w", err)
	}
	return res, nil
}

// insertAudit writes the audit row of a replay.
func insertAudit(ctx context.Context, tx *sql.Tx, req store.ReplayRequest, res store.ReplayResult) error {
	_, err := tx.ExecContext(ctx, insertReplay, micros(req.Now), req.Actor, sqlstore.AuditFilter(req.Filter),
		res.Matched, res.Rearmed, res.InFlight, req.DryRun)
	if err != nil {
		return fmt.Errorf("write audit row: %w", err)
	}
	return nil
}
