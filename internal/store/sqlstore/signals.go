package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var _ store.Signals = (*Ops)(nil)

const (
	// insertSlotHours + VALUES + addSlotHours adds counts to their hours,
	// keeping the latest time. Callers send one count per source and
	// secret, so no two rows of one statement update the same hour (which
	// PostgreSQL refuses).
	insertSlotHours = `INSERT INTO hookrelay.secret_hours AS h (source, secret, hour, verified, last_at) VALUES `
	addSlotHours    = `
ON CONFLICT (source, secret, hour) DO UPDATE SET
	verified = h.verified + excluded.verified,
	last_at = CASE WHEN excluded.last_at > h.last_at THEN excluded.last_at ELSE h.last_at END`

	// pruneSlotHours deletes hours past their keep; the table holds a row
	// per source, secret and hour, so the scan is small.
	pruneSlotHours = `DELETE FROM hookrelay.secret_hours WHERE hour < ?`

	// selectSlotUsage sums the hours from a given one and finds the
	// latest use.
	selectSlotUsage = `SELECT source, secret, max(last_at), coalesce(sum(verified) FILTER (WHERE hour >= ?), 0)
FROM hookrelay.secret_hours GROUP BY source, secret ORDER BY source, secret`

	// selectRecentEventTimes reads the newest events of a source by its
	// (source, id) index, then drops those without a provider time, so a
	// scheme that never gives one costs limit rows, not the whole source.
	selectRecentEventTimes = `SELECT occurred_at, received_at FROM (
	SELECT occurred_at, received_at, id FROM hookrelay.events
	WHERE source = ? ORDER BY id DESC LIMIT ?
) AS newest
WHERE occurred_at IS NOT NULL ORDER BY id DESC`
)

// hourOf is the start of t's hour, UTC.
func hourOf(t time.Time) time.Time { return t.UTC().Truncate(time.Hour) }

// CountSlots adds counts to their hours and deletes hours past their keep,
// in one transaction.
func (o *Ops) CountSlots(ctx context.Context, counts []store.SlotCount, now time.Time) error {
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("count slots: %w", err)
	}
	defer release()
	if len(counts) == 0 {
		return nil
	}
	d := o.b.Dialect
	args := make([]any, 0, 5*len(counts))
	for _, c := range counts {
		args = append(args, c.Source, c.Secret, d.Time(hourOf(c.Last)), c.Verified, d.Time(c.Last))
	}
	err = o.b.InTx(ctx, func(tx Conn) error {
		if err := upsertRows(ctx, tx, insertSlotHours, 5, args, addSlotHours); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, pruneSlotHours, d.Time(hourOf(now.Add(-store.SlotUsageKeep))))
		return err
	})
	if err != nil {
		return o.fail(ctx, "count slots", err)
	}
	return nil
}

// SlotUsage reports every kept secret's latest use and its count since.
func (o *Ops) SlotUsage(ctx context.Context, since time.Time) ([]store.SlotUsage, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("slot usage: %w", err)
	}
	defer release()
	rows, err := o.b.Read.Query(ctx, selectSlotUsage, o.b.Dialect.Time(hourOf(since)))
	us, err := collect(rows, err, func(row Rows) (store.SlotUsage, error) {
		var u store.SlotUsage
		err := row.Scan(&u.Source, &u.Secret, At(&u.LastVerified), &u.Verified)
		return u, err
	})
	if err != nil {
		return nil, o.fail(ctx, "slot usage", err)
	}
	return us, nil
}

// RecentEventTimes returns the provider and receive times among a
// source's newest limit events.
func (o *Ops) RecentEventTimes(ctx context.Context, source string, limit int) ([]store.EventTimes, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("recent event times: %w", err)
	}
	defer release()
	rows, err := o.b.Read.Query(ctx, selectRecentEventTimes, source, limit)
	ts, err := collect(rows, err, func(row Rows) (store.EventTimes, error) {
		var t store.EventTimes
		err := row.Scan(At(&t.OccurredAt), At(&t.ReceivedAt))
		return t, err
	})
	if err != nil {
		return nil, o.fail(ctx, "recent event times", err)
	}
	return ts, nil
}
