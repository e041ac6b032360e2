package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

var _ store.Activity = (*Store)(nil)

const (
	// receivedByStep counts a window's events per step. Event ids are
	// ULIDs of their receive time, so the window is a range of the
	// primary key.
	receivedByStep = `SELECT (received_at - ?1) / ?2, count(*) FROM events
		WHERE id >= ?3 AND id < ?4 AND received_at >= ?1 AND received_at < ?5 GROUP BY 1`
	// attemptsByStep counts a window's attempts per step, by
	// attempts_attempted_at.
	attemptsByStep = `SELECT (attempted_at - ?1) / ?2,
			coalesce(sum(status_code BETWEEN 200 AND 299), 0), coalesce(sum(status_code NOT BETWEEN 200 AND 299), 0)
		FROM attempts WHERE attempted_at >= ?1 AND attempted_at < ?3 GROUP BY 1`
)

// Activity counts the events received and the attempts made per step of
// [since, until).
func (s *Store) Activity(ctx context.Context, since, until time.Time, step time.Duration) ([]store.ActivityBucket, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	defer release()
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
	rows, err := s.reader.QueryContext(ctx, receivedByStep, micros(since), us, from, before, micros(until))
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", mapErr(ctx, err))
	}
	for rows.Next() {
		var i, n int64
		if err := rows.Scan(&i, &n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read activity: %w", mapErr(ctx, err))
		}
		if i >= 0 && i < int64(len(out)) {
			out[i].Received = n
		}
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("read activity: %w", mapErr(ctx, err))
	}
	rows, err = s.reader.QueryContext(ctx, attemptsByStep, micros(since), us, micros(until))
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", mapErr(ctx, err))
	}
	defer rows.Close()
	for rows.Next() {
		var i, ok, failed int64
		if err := rows.Scan(&i, &ok, &failed); err != nil {
			return nil, fmt.Errorf("read activity: %w", mapErr(ctx, err))
		}
		if i >= 0 && i < int64(len(out)) {
			out[i].Delivered, out[i].Failed = ok, failed
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read activity: %w", mapErr(ctx, err))
	}
	return out, nil
}
