package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var _ store.Activity = (*Ops)(nil)

// The statements of Activity, whose step index of a row, the first
// column, is Dialect.MicrosSince of its time and ?1 (since), divided by ?2
// (the step in microseconds).
const (
	// receivedByStep counts a window's events per step. Event ids are
	// ULIDs of their receive time, so the window is a range of the
	// primary key.
	receivedByStep = `SELECT %s / ?2, count(*) FROM events
WHERE id >= ?3 AND id < ?4 AND received_at >= ?1 AND received_at < ?5 GROUP BY 1`
	// attemptsByStep counts a window's attempts per step, by
	// attempts_attempted_at.
	attemptsByStep = `SELECT %s / ?2,
	count(*) FILTER (WHERE status_code BETWEEN 200 AND 299), count(*) FILTER (WHERE status_code NOT BETWEEN 200 AND 299)
FROM attempts WHERE attempted_at >= ?1 AND attempted_at < ?3 GROUP BY 1`
)

// Activity counts the events received and the attempts made per step of
// [since, until).
func (o *Ops) Activity(ctx context.Context, since, until time.Time, step time.Duration) ([]store.ActivityBucket, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	defer release()
	out := store.ActivityBuckets(since, until, step)
	if len(out) == 0 {
		return out, nil
	}
	from, ok := IDFrom(since)
	if !ok {
		from = ""
	}
	before, ok := IDBefore(until)
	if !ok {
		before = AboveEveryID
	}
	d := o.b.Dialect
	us := step.Microseconds()
	rows, err := o.b.Read.Query(ctx, d.byStep(receivedByStep, "received_at"), d.Time(since), us, from, before, d.Time(until))
	err = eachStep(rows, err, len(out), 1, func(i int, n []int64) { out[i].Received = n[0] })
	if err != nil {
		return nil, o.fail(ctx, "read activity", err)
	}
	rows, err = o.b.Read.Query(ctx, d.byStep(attemptsByStep, "attempted_at"), d.Time(since), us, d.Time(until))
	err = eachStep(rows, err, len(out), 2, func(i int, n []int64) { out[i].Delivered, out[i].Failed = n[0], n[1] })
	if err != nil {
		return nil, o.fail(ctx, "read activity", err)
	}
	return out, nil
}

// byStep returns query with the step index of column's time since ?1.
func (d Dialect) byStep(query, column string) string {
	return fmt.Sprintf(query, fmt.Sprintf(d.MicrosSince, column, "?1"))
}

// eachStep reads rows of a step index and counts more columns, and calls
// set with the counts of each step in [0, steps).
func eachStep(rows Rows, err error, steps, counts int, set func(i int, n []int64)) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	var i int64
	n := make([]int64, counts)
	dest := []any{&i}
	for k := range n {
		dest = append(dest, &n[k])
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if i >= 0 && i < int64(steps) {
			set(int(i), n)
		}
	}
	return rows.Err()
}
