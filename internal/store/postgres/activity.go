package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

var _ store.Activity = (*Store)(nil)

const (
	// receivedByStep counts a window's events per step. Event ids are
	// ULIDs of their receive time, so the window is a range of the
	// primary key.
	receivedByStep = `SELECT floor(extract(epoch FROM received_at - $1) * 1000000 / $2)::bigint AS i, count(*) FROM events
		WHERE id >= $3 AND id < $4 AND received_at >= $1 AND received_at < $5 GROUP BY i`
	// attemptsByStep counts a window's attempts per step, by
	// attempts_attempted_at.
	attemptsByStep = `SELECT floor(extract(epoch FROM attempted_at - $1) * 1000000 / $2)::bigint AS i,
			count(*) FILTER (WHERE status_code BETWEEN 200 AND 299), count(*) FILTER (WHERE status_code NOT BETWEEN 200 AND 299)
		FROM attempts WHERE attempted_at >= $1 AND attempted_at < $3 GROUP BY i`
)

// Activity counts the events received and the attempts made per step of
// [since, until).
func (s *Store) Activity(ctx context.Context, since, until time.Time, step time.Duration) ([]store.ActivityBucket, error) {
	out := store.ActivityBuckets(since, until, step)
	if len(out) == 0 {
		return out, nil
	}
	from, ok := sqlstore.IDFrom(since)
	if !ok {
		from = ""
	}
	before, ok := sqlstore.IDBefore(until)
	if !ok {
		before = sqlstore.AboveEveryID
	}
	us := step.Microseconds()
	var i, a, b int64
	rows, err := s.other.Query(ctx, receivedByStep, since, us, from, before, until)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", s.mapErr(ctx, err))
	}
	if _, err := pgx.ForEachRow(rows, []any{&i, &a}, func() error {
		if i >= 0 && i < int64(len(out)) {
			out[i].Received = a
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read activity: %w", s.mapErr(ctx, err))
	}
	rows, err = s.other.Query(ctx, attemptsByStep, since, us, until)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", s.mapErr(ctx, err))
	}
	if _, err := pgx.ForEachRow(rows, []any{&i, &a, &b}, func() error {
		if i >= 0 && i < int64(len(out)) {
			out[i].Delivered, out[i].Failed = a, b
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read activity: %w", s.mapErr(ctx, err))
	}
	return out, nil
}
