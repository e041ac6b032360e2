package sqlstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// selectCountsHead + the table + selectCountsTail returns the deliveries' counts by destination and
	// status, those not zero, from the table the triggers of migration
	// 0004 keep (see Dialect.CountsTable): one row per pair in SQLite,
	// the deltas that FoldCounts keeps few in PostgreSQL.
	selectCountsHead = `SELECT destination, status, CAST(sum(n) AS bigint) FROM `
	selectCountsTail = `
GROUP BY destination, status HAVING sum(n) <> 0`

	// selectOldestDueHead + VALUES + selectOldestDueTail returns, for
	// each destination of the VALUES list, the earliest next_attempt_at
	// of its pending or failed deliveries due at the first argument, or
	// NULL: the first entry of its part of the due index, whatever its
	// backlog.
	selectOldestDueHead = `SELECT x.column1, (
	SELECT d.next_attempt_at FROM hookrelay.deliveries d
	WHERE d.destination = x.column1 AND d.status IN ('pending', 'failed') AND d.next_attempt_at <= ?
	ORDER BY d.next_attempt_at
	LIMIT 1
)
FROM (VALUES `
	selectOldestDueTail = `) AS x`

	selectSourceStats = `SELECT source, received, duplicates, rejected FROM hookrelay.ingest_counts`
)

// Stats counts the deliveries of every destination that has any, by
// status (every status present, zeros included; one leased at ingest
// whose row is deferred is processing), with the age at now (the
// current time when zero) of its oldest due pending or failed delivery,
// and the ingest counts of every source that has any.
func (o *Ops) Stats(ctx context.Context, now time.Time) (store.Stats, error) {
	release, err := o.enter()
	if err != nil {
		return store.Stats{}, fmt.Errorf("stats: %w", err)
	}
	defer release()
	if now.IsZero() {
		now = time.Now()
	}
	st := store.Stats{Destinations: map[string]store.DestinationStats{}, Sources: map[string]store.SourceStats{}}
	if err := o.statsCounts(ctx, st.Destinations); err != nil {
		return store.Stats{}, o.fail(ctx, "stats", err)
	}
	if err := o.oldestDue(ctx, st.Destinations, now); err != nil {
		return store.Stats{}, o.fail(ctx, "stats", err)
	}
	if err := o.sourceStats(ctx, st.Sources); err != nil {
		return store.Stats{}, o.fail(ctx, "stats", err)
	}
	return st, nil
}

// statsCounts adds to dests the deliveries' counts by destination and
// status: those the triggers keep, which hold a delivery from its row's
// insert, and those leased at ingest whose rows are deferred (processing;
// see deferredCounts), in one statement, so that a row written between
// the two is counted once.
func (o *Ops) statsCounts(ctx context.Context, dests map[string]store.DestinationStats) error {
	query := selectCountsHead + o.b.Dialect.CountsTable + selectCountsTail + `
UNION ALL
` + deferredCounts(o.b.Dialect)
	rows, err := o.b.Read.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			dest, status string
			n            int64
		)
		if err := rows.Scan(&dest, &status, &n); err != nil {
			return err
		}
		AddCount(dests, dest, store.DeliveryStatus(status), n)
	}
	return rows.Err()
}

// oldestDue sets the OldestPendingAge of dests at now, one index probe
// per destination, all in one statement (or one per maxArgs
// destinations). Its text depends only on the number of destinations, so
// that it is prepared once for each.
func (o *Ops) oldestDue(ctx context.Context, dests map[string]store.DestinationStats, now time.Time) error {
	names := slices.Sorted(maps.Keys(dests))
	for chunk := range slices.Chunk(names, maxArgs-1) {
		args := make([]any, 0, 1+len(chunk))
		args = append(args, o.b.Dialect.Time(now))
		for _, name := range chunk {
			args = append(args, name)
		}
		rows, err := o.b.Read.Query(ctx, selectOldestDueHead+Values(len(chunk), 1)+selectOldestDueTail, args...)
		if err != nil {
			return err
		}
		err = oldestDueRows(rows, dests, now)
		rows.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// oldestDueRows reads the rows of selectOldestDue into dests.
func oldestDueRows(rows Rows, dests map[string]store.DestinationStats, now time.Time) error {
	for rows.Next() {
		var (
			dest string
			at   time.Time
		)
		if err := rows.Scan(&dest, At(&at)); err != nil {
			return err
		}
		if at.IsZero() {
			continue
		}
		d := dests[dest]
		d.OldestPendingAge = max(now.Sub(at), 0)
		dests[dest] = d
	}
	return rows.Err()
}

// sourceStats reads the ingest counts into sources.
func (o *Ops) sourceStats(ctx context.Context, sources map[string]store.SourceStats) error {
	rows, err := o.b.Read.Query(ctx, selectSourceStats)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			name string
			c    store.SourceStats
		)
		if err := rows.Scan(&name, &c.Received, &c.Duplicates, &c.Rejected); err != nil {
			return err
		}
		sources[name] = c
	}
	return rows.Err()
}

// AddCount adds to dests n deliveries of destination dest in status, as
// Stats reads them row by row: a destination's first count brings its
// every status in, at 0 until counted.
func AddCount(dests map[string]store.DestinationStats, dest string, status store.DeliveryStatus, n int64) {
	d, ok := dests[dest]
	if !ok {
		d = store.DestinationStats{Counts: make(map[store.DeliveryStatus]int64, len(store.Statuses))}
		for _, st := range store.Statuses {
			d.Counts[st] = 0
		}
	}
	d.Counts[status] += n
	dests[dest] = d
}
