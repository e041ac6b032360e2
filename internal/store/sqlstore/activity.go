package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var _ store.Activity = (*Ops)(nil)

const (
	// activityMinutes reads the counters of the minutes in [?1, ?2) that
	// the triggers of migrations 0023 and 0028 keep: the events received,
	// counted as events are inserted; the attempts delivered, counted
	// as an outcome sets a delivery done (its attempt is kept on its row,
	// not as a row of attempts); and the attempts failed, counted as their
	// rows of attempts are inserted, per minute. Where the
	// driver appends deltas (Dialect.ActivityDeltas), a minute has one
	// folded row and any number of deltas, read in the same statement,
	// so in one snapshot.
	activityMinutes = `SELECT minute, received, delivered, failed FROM %s WHERE minute >= ?1 AND minute < ?2`
)

// Activity adds up the counters of the minutes of [since, until) into
// buckets of step: a minute is counted in the bucket its start falls in.
// It reads at most one row per minute, plus the deltas not yet folded,
// never the events or the attempts.
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
	d := o.b.Dialect
	query := fmt.Sprintf(activityMinutes, "hookrelay.activity_minutes")
	if d.ActivityDeltas != "" {
		query += "\nUNION ALL\n" + fmt.Sprintf(activityMinutes, d.ActivityDeltas)
	}
	rows, err := o.b.Read.Query(ctx, query, d.Time(since), d.Time(until))
	if err != nil {
		return nil, o.fail(ctx, "read activity", err)
	}
	defer rows.Close()
	var (
		minute                     time.Time
		received, delivered, fails int64
	)
	dest := []any{At(&minute), &received, &delivered, &fails}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, o.fail(ctx, "read activity", err)
		}
		i := minute.Sub(since) / step
		if i < 0 || int(i) >= len(out) {
			continue
		}
		b := &out[i]
		b.Received += received
		b.Delivered += delivered
		b.Failed += fails
	}
	if err := rows.Err(); err != nil {
		return nil, o.fail(ctx, "read activity", err)
	}
	return out, nil
}
