package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var _ store.FleetAlerts = (*Ops)(nil)

const (
	// insertRejectionCounts + VALUES + addRejectionCounts adds counts to
	// their intervals' rows, which every process adds to. The rows go in
	// key order, so that the flushes of two processes lock common rows in
	// one order.
	insertRejectionCounts = `INSERT INTO hookrelay.rejection_counts AS c (at, source, reason, n) VALUES `
	addRejectionCounts    = `
ON CONFLICT (at, source, reason) DO UPDATE SET n = c.n + excluded.n`

	// selectRejectionsSince reads the intervals from ? by the key's
	// leading column.
	selectRejectionsSince = `SELECT source, reason, min(at), sum(n) FROM hookrelay.rejection_counts
WHERE at >= ? GROUP BY source, reason ORDER BY source, reason`

	dropRejectionCounts = `DELETE FROM hookrelay.rejection_counts WHERE at < ?`

	// markAlert records that rule ?1 raised about subject ?2 at ?3 unless
	// it did after ?4 (?3 less the quiet time). As with claimLease, two
	// marks at once are ordered by the row: the second checks the WHERE
	// against the first's raised_at and changes nothing, so it changes
	// no row.
	markAlert = `INSERT INTO hookrelay.alert_marks AS m (rule, subject, raised_at) VALUES (?1, ?2, ?3)
ON CONFLICT (rule, subject) DO UPDATE SET raised_at = excluded.raised_at
WHERE m.raised_at <= ?4`
)

// CountRejections adds counts to their totals, in one statement (or, past
// the limits on arguments, in one transaction).
func (o *Ops) CountRejections(ctx context.Context, counts []store.RejectionCount) error {
	const what = "count rejections"
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	if len(counts) == 0 {
		return nil
	}
	sorted := slices.SortedFunc(slices.Values(counts), func(a, b store.RejectionCount) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Source, b.Source), cmp.Compare(a.Reason, b.Reason))
	})
	d := o.b.Dialect
	args := make([]any, 0, 4*len(sorted))
	for _, c := range sorted {
		args = append(args, d.Time(c.At), c.Source, c.Reason, c.N)
	}
	add := func(c Conn) error { return upsertRows(ctx, c, insertRejectionCounts, 4, args, addRejectionCounts) }
	if oneStatement(4, args) {
		err = add(o.b.Write)
	} else {
		err = o.b.InTx(ctx, add)
	}
	if err != nil {
		return o.fail(ctx, what, err)
	}
	return nil
}

// RejectionsSince sums the counts of the intervals from since per source
// and reason.
func (o *Ops) RejectionsSince(ctx context.Context, since time.Time) ([]store.RejectionCount, error) {
	const what = "read rejection counts"
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	rows, err := o.b.Read.Query(ctx, selectRejectionsSince, o.b.Dialect.Time(since))
	cs, err := collect(rows, err, func(row Rows) (store.RejectionCount, error) {
		var c store.RejectionCount
		err := row.Scan(&c.Source, &c.Reason, At(&c.At), &c.N)
		return c, err
	})
	if err != nil {
		return nil, o.fail(ctx, what, err)
	}
	return cs, nil
}

// DropRejectionCounts deletes the intervals that start before before.
func (o *Ops) DropRejectionCounts(ctx context.Context, before time.Time) (int64, error) {
	const what = "drop rejection counts"
	release, err := o.enter()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	n, err := o.b.Write.Exec(ctx, dropRejectionCounts, o.b.Dialect.Time(before))
	if err != nil {
		return 0, o.fail(ctx, what, err)
	}
	return n, nil
}

// MarkAlert records the alert unless it was recorded within quiet before
// at, and reports whether it did.
func (o *Ops) MarkAlert(ctx context.Context, rule, subject string, at time.Time, quiet time.Duration) (bool, error) {
	const what = "mark alert"
	release, err := o.enter()
	if err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	d := o.b.Dialect
	n, err := o.b.Write.Exec(ctx, markAlert, rule, subject, d.Time(at), d.Time(at.Add(-quiet)))
	if err != nil {
		return false, o.fail(ctx, what, err)
	}
	return n == 1, nil
}
