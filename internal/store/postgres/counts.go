package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hookrelay/hookrelay/internal/store"
)

// foldInterval is how often a store folds the delivery count, failure
// count and activity deltas. A busy relay appends a few rows per ingest, claim
// and outcome statement; folding every second keeps what Stats and
// Activity sum to a few thousand rows.
const foldInterval = time.Second

// foldLockKey is the advisory lock that lets one process fold at a time;
// the others skip their turn rather than wait on its rows.
const foldLockKey = 0x686f6f6b_636e7473 // "hookcnts"

// runFolds folds the deltas every foldInterval until the store is
// closed.
func (s *Store) runFolds() {
	defer close(s.foldsDone)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.done
		cancel()
	}()
	tick := time.NewTicker(foldInterval)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
		err := s.FoldCounts(ctx)
		switch {
		case err == nil, ctx.Err() != nil, isUndefinedTable(err):
			// Closing, or not migrated yet: nothing to fold.
		case errors.Is(err, store.ErrUnavailable):
			s.logger.Debug("fold counts", logError, err)
		default:
			s.logger.Warn("fold counts", logError, err)
		}
	}
}

// FoldCounts replaces the delivery count deltas of each (destination,
// status) by one row of their sum, dropping sums of zero, in one
// transaction: a reader sees the rows before or after, and the sums are
// the same. Then, each in a transaction of its own, it does the same for
// the failure counts' deltas, by (destination, status, kind), and adds
// the activity deltas to their minutes' rows. When another process is
// folding, it does nothing.
func (s *Store) FoldCounts(ctx context.Context) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("fold counts: %w", err)
	}
	defer release()
	if err := s.fold(ctx, foldCounts); err != nil {
		return fmt.Errorf("fold delivery counts: %w", err)
	}
	if err := s.fold(ctx, foldFailureCounts); err != nil {
		return fmt.Errorf("fold failure counts: %w", err)
	}
	if err := s.fold(ctx, foldActivity); err != nil {
		return fmt.Errorf("fold activity: %w", err)
	}
	return nil
}

// fold runs statement in a transaction that holds the fold's advisory
// lock, unless another holds it.
func (s *Store) fold(ctx context.Context, statement string) error {
	err := pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, tryFoldLock, int64(foldLockKey)).Scan(&locked); err != nil || !locked {
			return err
		}
		_, err := tx.Exec(ctx, s.sql.SQL(statement))
		return err
	})
	return s.mapErr(ctx, err)
}

// isUndefinedTable tells whether err is undefined_table (42P01): the
// database is not migrated yet.
func isUndefinedTable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42P01"
}
