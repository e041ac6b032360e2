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
	// groupFailures reads the groups of failed and dead deliveries from
	// the counts the triggers of migration 0024 keep by destination,
	// status and kind (%[1]s, Dialect.FailureCounts: one row a group in
	// SQLite, deltas that FoldCounts keeps few in PostgreSQL), with the
	// condition %[2]s on them. Each group's first and last seen and the
	// bounds of its event ids are the ends of its range in the partial
	// indexes deliveries_failures_seen and deliveries_failures_events:
	// four index probes, whose condition starts with the indexes' own,
	// written as theirs is, for SQLite's planner matches the two by their
	// text. The example is the delivery of the group's newest event, by
	// the (event_id, destination) index. One statement, so one snapshot:
	// the counts and the probes agree.
	groupFailures = `SELECT g.destination, g.status, g.kind, g.n, g.first_seen, g.last_seen,
	coalesce(g.oldest, ''), coalesce(g.newest, ''),
	coalesce(x.event_id, ''), coalesce(x.last_error, ''), coalesce(x.last_status_code, 0)
FROM (
	SELECT c.destination, c.status, c.kind, c.n,
		(` + failureProbe + ` ORDER BY d.updated_at LIMIT 1) AS first_seen,
		(` + failureProbe + ` ORDER BY d.updated_at DESC LIMIT 1) AS last_seen,
		(` + failureEventProbe + ` ORDER BY d.event_id LIMIT 1) AS oldest,
		(` + failureEventProbe + ` ORDER BY d.event_id DESC LIMIT 1) AS newest
	FROM (
		SELECT destination, status, kind, CAST(sum(n) AS bigint) AS n FROM %[1]s
		WHERE %[2]s
		GROUP BY destination, status, kind
		HAVING sum(n) <> 0
	) AS c
) AS g
LEFT JOIN hookrelay.deliveries x ON x.event_id = g.newest AND x.destination = g.destination
	AND x.status = g.status AND x.failure_kind = g.kind`

	// failureProbe and failureEventProbe read one column of a group c's
	// deliveries d, in the order of an index that holds the group's
	// deliveries together.
	failureProbe      = `SELECT d.updated_at FROM hookrelay.deliveries d WHERE ` + failuresIndexed + groupOf
	failureEventProbe = `SELECT d.event_id FROM hookrelay.deliveries d WHERE ` + failuresIndexed + groupOf
	groupOf           = ` AND d.destination = c.destination AND d.status = c.status AND d.failure_kind = c.kind`

	// failuresIndexed is the condition of the failure indexes, on d.
	failuresIndexed = "d.status IN ('failed', 'dead')"
)

// failureStatuses are the statuses Failures groups, in the order it lists
// them.
var failureStatuses = []store.DeliveryStatus{store.StatusFailed, store.StatusDead}

// Failures reads the groups of failed and dead deliveries from their
// counts, each group's times and example by index probes, in one
// statement: its cost follows the number of groups, not of failures. The
// groups are ordered by destination, then failed before dead, then by
// kind as failure.Kinds lists them.
func (o *Ops) Failures(ctx context.Context, req store.FailuresRequest) ([]store.FailureGroup, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("group failures: %w", err)
	}
	defer release()
	w := NewWhere(o.b.Dialect)
	w.Add("status IN ('failed', 'dead')")
	if req.Destination != "" {
		w.Add("destination = %s", req.Destination)
	}
	query := fmt.Sprintf(groupFailures, o.b.Dialect.FailureCounts, w.SQL())
	rows, err := o.b.Read.Query(ctx, query, w.Args()...)
	out, err := collect(rows, err, func(rows Rows) (store.FailureGroup, error) {
		var r failureRow
		err := rows.Scan(&r.g.Destination, &r.status, &r.kind, &r.g.Count, At(&r.g.FirstSeen), At(&r.g.LastSeen),
			&r.oldest, &r.newest, &r.g.ExampleEventID, &r.g.ExampleError, &r.g.ExampleStatusCode)
		return r.group(), err
	})
	if err != nil {
		return nil, o.fail(ctx, "group failures", err)
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
