package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// pruneCandidates returns, oldest first, up to ?5 events received
	// before ?2 (the later of the two retention bounds; ?1 is its id
	// bound) that look prunable: no live delivery, and received before
	// ?3 when one delivery is dead, else before ?4 (a NULL bound prunes
	// nothing). Each event's deliveries are read by a correlated
	// aggregate, one probe of the (event_id, destination) index per
	// event, which no planner turns into a scan of every live delivery.
	// Where rows are locked (%s), it locks the events it returns and
	// skips those another transaction holds (a backfill adding
	// deliveries holds one).
	pruneCandidates = `SELECT e.id, e.received_at FROM hookrelay.events e
WHERE e.id < ?1 AND e.received_at < ?2
	AND (SELECT CASE
		WHEN count(*) FILTER (WHERE d.status IN ('pending', 'processing', 'failed')) > 0 THEN false
		WHEN count(*) FILTER (WHERE d.status = 'dead') > 0 THEN e.received_at < ?3
		ELSE e.received_at < ?4 END
	FROM hookrelay.deliveries d WHERE d.event_id = e.id)
ORDER BY e.id
LIMIT ?5
%s`

	// pruneCheck returns, for each event of a list (%[1]s) that has
	// deliveries, how many it has, how many were locked, and how many of
	// those are live and how many dead. Where rows are locked (%[2]s), it
	// locks the deliveries, of events the transaction holds locked so
	// that none can be added, skipping any another transaction holds
	// (such as a replay re-arming it); a locked row is read in its latest
	// committed version, so a status changed since pruneCandidates's
	// snapshot is seen.
	pruneCheck = `WITH held AS MATERIALIZED (
	SELECT d.event_id, d.status FROM hookrelay.deliveries d
	WHERE %[1]s
	%[2]s
), h AS (
	SELECT event_id, count(*) AS n,
		count(*) FILTER (WHERE status IN ('pending', 'processing', 'failed')) AS live,
		count(*) FILTER (WHERE status = 'dead') AS dead
	FROM held GROUP BY event_id
), t AS (
	SELECT d.event_id, count(*) AS n FROM hookrelay.deliveries d
	WHERE %[1]s GROUP BY d.event_id
)
SELECT t.event_id, t.n, coalesce(h.n, 0), coalesce(h.live, 0), coalesce(h.dead, 0)
FROM t LEFT JOIN h ON h.event_id = t.event_id`

	// pruneActivity deletes the activity counters of the minutes before
	// ?1 from a table of them (%s).
	pruneActivity = `DELETE FROM %s WHERE minute < ?1`

	// pruneEvents deletes the events of a list (%s), and with them their
	// deliveries and attempts (by cascade on SQLite, by triggers on
	// PostgreSQL).
	pruneEvents = `DELETE FROM hookrelay.events WHERE %s`
)

// PruneBound returns what bounds the events req may prune: bound, the
// later of its DoneBefore and DeadBefore, before which each was received,
// and boundID, below which their ids lie (AboveEveryID when bound bounds
// no id). ok is false when req prunes nothing: a Limit below 1, or
// neither bound set.
func PruneBound(req store.PruneRequest) (bound time.Time, boundID string, ok bool) {
	if req.Limit < 1 || (req.DoneBefore.IsZero() && req.DeadBefore.IsZero()) {
		return time.Time{}, "", false
	}
	bound = req.DoneBefore
	if req.DeadBefore.After(bound) {
		bound = req.DeadBefore
	}
	if boundID, ok = IDBefore(bound); !ok {
		boundID = AboveEveryID
	}
	return bound, boundID, true
}

// Prune deletes up to req.Limit finished events past their retention,
// oldest first, with their deliveries and attempts, and returns how many
// it deleted: events received before DoneBefore whose deliveries are all
// done or skipped (or that have none), and events received before
// DeadBefore whose deliveries are all final with at least one dead. A
// zero bound prunes nothing by its rule; a Limit below 1 deletes nothing.
//
// It never deletes an event received at or after the earliest event with
// a deferred delivery not yet swept (store.Lease.Deferred), which has no
// row yet to keep its event, however short the retention.
//
// It never deletes an event with a live delivery, whatever runs
// alongside. In one transaction it reads, and where rows are locked
// locks, the candidate events (skipping any another transaction holds),
// so that no delivery can be added to them; then, in a later statement
// whose snapshot sees every delivery added before, locks their
// deliveries (skipping any another transaction holds, such as a replay
// re-arming them) and reads their latest statuses; and deletes only the
// events whose deliveries were all locked and still qualify. Nothing
// waits on another writer, so it cannot deadlock with a replay or a
// claim. On SQLite the transaction holds the single writer, so nothing
// changes between the reads and the delete.
func (o *Ops) Prune(ctx context.Context, req store.PruneRequest) (int64, error) {
	release, err := o.enter()
	if err != nil {
		return 0, fmt.Errorf("prune: %w", err)
	}
	defer release()
	var since time.Time
	if err := o.b.Read.QueryRow(ctx, deferredSince).Scan(At(&since)); err != nil {
		return 0, o.fail(ctx, "prune", err)
	}
	if !since.IsZero() {
		req.DoneBefore, req.DeadBefore = earlier(req.DoneBefore, since), earlier(req.DeadBefore, since)
	}
	bound, boundID, ok := PruneBound(req)
	if !ok {
		return 0, nil
	}
	if err := o.pruneActivity(ctx, req); err != nil {
		return 0, o.fail(ctx, "prune", err)
	}
	d := o.b.Dialect
	var deleted int64
	err = o.b.InTx(ctx, func(tx Conn) error {
		rows, err := tx.Query(ctx, fmt.Sprintf(pruneCandidates, d.locking("FOR UPDATE OF e SKIP LOCKED")),
			boundID, d.Time(bound), d.NullTime(req.DeadBefore), d.NullTime(req.DoneBefore), req.Limit)
		candidates, err := collect(rows, err, func(row Rows) (pruneCandidate, error) {
			var c pruneCandidate
			return c, row.Scan(&c.id, At(&c.received))
		})
		if err != nil || len(candidates) == 0 {
			return err
		}
		ids, err := o.stillPrunable(ctx, tx, candidates, req)
		if err != nil || len(ids) == 0 {
			return err
		}
		deleted, err = tx.Exec(ctx, fmt.Sprintf(pruneEvents, d.in("id", "?", "text")), d.List(ids))
		return err
	})
	if err != nil {
		return 0, o.fail(ctx, "prune", err)
	}
	return deleted, nil
}

// deferredSince is the earliest receive time of an event with a deferred
// delivery not yet swept, or NULL.
const deferredSince = `SELECT min(received_at) FROM hookrelay.delivery_leases`

// earlier returns bound, or at when bound is set and later than at.
func earlier(bound, at time.Time) time.Time {
	if !bound.IsZero() && bound.After(at) {
		return at
	}
	return bound
}

// pruneCandidate is an event a prune may delete, and when it was
// received.
type pruneCandidate struct {
	id       string
	received time.Time
}

// stillPrunable locks the deliveries of the candidates and returns the
// ids of those that still qualify, in order.
func (o *Ops) stillPrunable(ctx context.Context, tx Conn, candidates []pruneCandidate, req store.PruneRequest) ([]string, error) {
	ids := make([]string, len(candidates))
	for i, c := range candidates {
		ids[i] = c.id
	}
	d := o.b.Dialect
	type check struct{ total, held, live, dead int64 }
	checks := map[string]check{}
	rows, err := tx.Query(ctx, fmt.Sprintf(pruneCheck, d.in("d.event_id", "?1", "text"), d.locking("FOR UPDATE OF d SKIP LOCKED")),
		d.List(ids))
	_, err = collect(rows, err, func(row Rows) (struct{}, error) {
		var (
			id string
			c  check
		)
		err := row.Scan(&id, &c.total, &c.held, &c.live, &c.dead)
		checks[id] = c
		return struct{}{}, err
	})
	if err != nil {
		return nil, err
	}
	ids = ids[:0]
	for _, cand := range candidates {
		c := checks[cand.id] // zero: the event has no delivery
		before := req.DoneBefore
		if c.dead > 0 {
			before = req.DeadBefore
		}
		if c.held == c.total && c.live == 0 && cand.received.Before(before) {
			ids = append(ids, cand.id)
		}
	}
	return ids, nil
}

// ActivityBound returns the start of the first minute whose activity
// counters a prune by req keeps: the minute of the earlier of its bounds
// set, so that a minute is deleted once it ended before both, and what
// either retention keeps is still counted.
func ActivityBound(req store.PruneRequest) time.Time {
	bound := req.DoneBefore
	if bound.IsZero() || (!req.DeadBefore.IsZero() && req.DeadBefore.Before(bound)) {
		bound = req.DeadBefore
	}
	return bound.Truncate(time.Minute)
}

// pruneActivity deletes the activity counters, folded and not, of the
// minutes before ActivityBound(req): the deltas not yet folded first, then
// the minutes. A fold (PostgreSQL) that moves deltas into their minutes
// meanwhile either commits before the deltas' delete reaches its rows, and
// the minutes' delete, a later statement, sees the minutes it wrote, or
// finds those deltas gone. In the other order a fold could write a minute
// back after its delete.
func (o *Ops) pruneActivity(ctx context.Context, req store.PruneRequest) error {
	d := o.b.Dialect
	before := d.Time(ActivityBound(req))
	for _, table := range []string{d.ActivityDeltas, "hookrelay.activity_minutes"} {
		if table == "" {
			continue
		}
		if _, err := o.b.Write.Exec(ctx, fmt.Sprintf(pruneActivity, table), before); err != nil {
			return fmt.Errorf("delete activity: %w", err)
		}
	}
	return nil
}
