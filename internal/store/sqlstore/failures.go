package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/failure"
	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// groupFailures counts the failed and dead deliveries by status,
	// destination and kind, with the bounds of their last changes and of
	// their event ids. Its condition (%[2]s) starts with that of the
	// partial index deliveries_failures, written as the index's is, for
	// SQLite's planner matches the two by their text. The inner query
	// groups by what the kind is read from, in the index's order (SQLite
	// reads it without sorting), so that the kind (the expression %[1]s,
	// see Dialect.FailureKind) is worked out once for each distinct last
	// status code and error, not once a delivery.
	groupFailures = `SELECT status, destination, %[1]s, CAST(sum(n) AS bigint), min(first_seen), max(last_seen), min(oldest), max(newest)
FROM (
	SELECT status, destination, last_status_code, last_error, count(*) AS n,
		min(updated_at) AS first_seen, max(updated_at) AS last_seen, min(event_id) AS oldest, max(event_id) AS newest
	FROM deliveries
	WHERE %[2]s
	GROUP BY status, destination, last_status_code, last_error
) AS f
GROUP BY 1, 2, 3`

	// failuresIndexed is the condition of deliveries_failures.
	failuresIndexed = "status IN ('failed', 'dead')"

	// failureExample reads what one delivery's last attempt recorded, by
	// the (event_id, destination) index, while it is still in a status.
	failureExample = `SELECT last_error, last_status_code FROM deliveries
WHERE event_id = ? AND destination = ? AND status = ?`
)

// failureStatuses are the statuses Failures groups, in the order it lists
// them.
var failureStatuses = []store.DeliveryStatus{store.StatusFailed, store.StatusDead}

// Failures groups the failed and the dead deliveries by destination and
// kind in one statement, then reads each group's example by its newest
// event. The groups are ordered by destination, then failed before dead,
// then by kind as failure.Kinds lists them.
func (o *Ops) Failures(ctx context.Context, req store.FailuresRequest) ([]store.FailureGroup, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("group failures: %w", err)
	}
	defer release()
	w := NewWhere(o.b.Dialect)
	w.Add(failuresIndexed)
	if req.Destination != "" {
		w.Add("destination = %s", req.Destination)
	}
	query := fmt.Sprintf(groupFailures, o.b.Dialect.FailureKind("last_status_code", "last_error"), w.SQL())
	rows, err := o.b.Read.Query(ctx, query, w.Args()...)
	groups, err := collect(rows, err, func(rows Rows) (failureRow, error) {
		var r failureRow
		err := rows.Scan(&r.status, &r.g.Destination, &r.kind, &r.g.Count, At(&r.g.FirstSeen), At(&r.g.LastSeen), &r.oldest, &r.newest)
		return r, err
	})
	if err != nil {
		return nil, o.fail(ctx, "group failures", err)
	}
	out := make([]store.FailureGroup, 0, len(groups))
	for _, r := range groups {
		g := r.group()
		if err := o.failureExample(ctx, &g, r.newest); err != nil {
			return nil, o.fail(ctx, "group failures", err)
		}
		out = append(out, g)
	}
	sortFailures(out)
	return out, nil
}

// failureRow is one row of groupFailures.
type failureRow struct {
	g              store.FailureGroup
	status, kind   string
	oldest, newest string
}

// group returns the row as a group, its window read from its events'
// ids.
func (r failureRow) group() store.FailureGroup {
	g := r.g
	g.Status, g.Kind = store.DeliveryStatus(r.status), failure.Kind(r.kind)
	since, err1 := ulid.ParseStrict(r.oldest)
	until, err2 := ulid.ParseStrict(r.newest)
	if err1 == nil && err2 == nil {
		// An id's time is its event's receive time truncated to the
		// millisecond: the window ends with the newest one's millisecond.
		g.ReceivedSince, g.ReceivedUntil = ulid.Time(since.Time()).UTC(), ulid.Time(until.Time()+1).UTC()
	}
	return g
}

// failureExample sets g's example from the delivery of its newest event,
// unless that delivery left the group since it was counted.
func (o *Ops) failureExample(ctx context.Context, g *store.FailureGroup, eventID string) error {
	type example struct {
		text string
		code int
	}
	rows, err := o.b.Read.Query(ctx, failureExample, eventID, g.Destination, string(g.Status))
	found, err := collect(rows, err, func(rows Rows) (example, error) {
		var e example
		err := rows.Scan(&e.text, &e.code)
		return e, err
	})
	if err != nil {
		return err
	}
	if len(found) == 0 || failure.Classify(found[0].code, found[0].text) != g.Kind {
		return nil
	}
	g.ExampleEventID, g.ExampleError, g.ExampleStatusCode = eventID, found[0].text, found[0].code
	return nil
}

// sortFailures orders groups by destination, status as failureStatuses
// lists them, then kind as failure.Kinds does.
func sortFailures(gs []store.FailureGroup) {
	slices.SortStableFunc(gs, func(a, b store.FailureGroup) int {
		return cmp.Or(
			strings.Compare(a.Destination, b.Destination),
			cmp.Compare(slices.Index(failureStatuses, a.Status), slices.Index(failureStatuses, b.Status)),
			cmp.Compare(slices.Index(failure.Kinds, a.Kind), slices.Index(failure.Kinds, b.Kind)),
		)
	})
}
