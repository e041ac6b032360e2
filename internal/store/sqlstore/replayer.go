package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// replaySelection selects deliveries of a replay: those after the key
	// (?, ?) in (event_id, destination) order that meet the conditions
	// spliced in (%[1]s), up to the limit spliced in (%[2]s, or none),
	// never a purged one (its event has nothing left to deliver). The
	// deliveries are read first, from their unique index where the last
	// batch left off, so that a batch costs the same wherever it is in
	// the walk: SQLite keeps the order of a CROSS JOIN, and e.id >= ?1,
	// implied by the key, starts PostgreSQL's events where the
	// deliveries start (without it its planner read the events from the
	// start of the window in every batch, so that the batches of a walk
	// over a million deliveries read some fifty million events between
	// them).
	replaySelection = `SELECT d.id, d.event_id, d.destination, d.status
FROM hookrelay.deliveries d CROSS JOIN hookrelay.events e
WHERE e.id = d.event_id AND (d.event_id, d.destination) > (?, ?) AND e.id >= ?1
	AND d.status <> 'purged'
	AND %[1]s
ORDER BY d.event_id, d.destination
%[2]s`

	// replayCount counts a batch of a replay, and those of it
	// processing, and returns its last key.
	replayCount = `WITH sel AS MATERIALIZED (
` + replaySelection + `
), last AS (
	SELECT event_id, destination FROM sel ORDER BY event_id DESC, destination DESC LIMIT 1
)
SELECT (SELECT count(*) FROM sel), (SELECT count(*) FROM sel WHERE status = 'processing'),
	coalesce((SELECT event_id FROM last), ''), coalesce((SELECT destination FROM last), '')`

	// replayDeferred counts the deferred deliveries in flight (%[1]s,
	// see deferredInFlight), seen as processing deliveries d, of the
	// events e that are not purged, that meet the conditions spliced in
	// (%[2]s).
	replayDeferred = `SELECT count(*)
FROM (SELECT x.id, x.event_id, x.destination, 'processing' AS status FROM %[1]s) AS d
CROSS JOIN hookrelay.events e
WHERE e.id = d.event_id AND e.purged_at IS NULL AND %[2]s`

	insertReplay = `INSERT INTO hookrelay.replays (at, actor, filter, matched, rearmed, in_flight, dry_run, kind)
VALUES (?, ?, ?, ?, ?, ?, ?, 'replay')`
)

// Replay re-arms the deliveries of the events req.Filter selects (of its
// Destination and in its Status when set) in batches of
// Dialect.ReplayBatch (see RunReplay), each a transaction of its own:
// every one not processing becomes pending, due at req.Now (the current
// time when zero), with attempts 0, replay_count + 1, no lease and no
// finished_at, and its last error and status code cleared — they belong
// to the run the replay supersedes; the attempts table keeps them. A
// batch that re-arms rows wakes the listeners of their destinations as
// it commits, so delivery starts before the replay ends (see rearm).
// Without req.Progress, up to Dialect.ReplayStretches stretches of the
// selection are re-armed at once behind a walk that finds where they
// end; with it, batches run one after the other, so that a stop is
// exact. It then writes the audit row.
//
// InFlight counts the selected deliveries that were processing as their
// batch was re-armed, and those leased at ingest whose rows were still
// deferred once the walk had ended (ReplayDeferred), and Matched =
// Rearmed + InFlight. (A delivery whose status changes while its batch
// is re-armed may be counted in neither.) A dry run counts the same way, changes nothing, and still
// writes its audit row. A bad glob or status is store.ErrBadFilter.
func (o *Ops) Replay(ctx context.Context, req store.ReplayRequest) (store.ReplayResult, error) {
	release, err := o.enter()
	if err != nil {
		return store.ReplayResult{}, fmt.Errorf("replay: %w", err)
	}
	defer release()
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	if err := NewWhere(o.b.Dialect).FilterDeliveries(req.Filter); err != nil {
		return store.ReplayResult{}, fmt.Errorf("replay: %w", err)
	}
	res, err := RunReplay(ctx, replayer{o: o, req: req}, req, o.b.Dialect.ReplayBatch)
	if err != nil {
		return res, o.fail(ctx, "replay", err)
	}
	return res, nil
}

var _ RangeReplayer = replayer{}

// replayer is the RangeReplayer of one replay.
type replayer struct {
	o   *Ops
	req store.ReplayRequest
}

// ReplayStretches is how many stretches of a replay may be re-armed at
// once (see Dialect.ReplayStretches).
func (r replayer) ReplayStretches() int { return r.o.b.Dialect.ReplayStretches }

// ReplayBatch counts, in one statement, or re-arms a batch (see rearm).
func (r replayer) ReplayBatch(ctx context.Context, after ReplayKey, n int, dryRun bool, job JobWrite) (ReplayBatch, error) {
	w := NewWhere(r.o.b.Dialect, after.EventID, after.Destination)
	if err := w.FilterDeliveries(r.req.Filter); err != nil {
		return ReplayBatch{}, err
	}
	limit := "LIMIT " + w.Arg(n)
	if !dryRun {
		return r.rearm(ctx, w, limit, job)
	}
	var b ReplayBatch
	err := r.o.b.Read.QueryRow(ctx, fmt.Sprintf(replayCount, w.SQL(), limit), w.Args()...).
		Scan(&b.Selected, &b.InFlight, &b.Last.EventID, &b.Last.Destination)
	return b, err
}

// ReplayRange re-arms the deliveries of the selection after after and up
// to upto (with no upper bound when open) as ReplayBatch does.
func (r replayer) ReplayRange(ctx context.Context, after, upto ReplayKey, open bool) (ReplayBatch, error) {
	w := NewWhere(r.o.b.Dialect, after.EventID, after.Destination)
	if err := w.FilterDeliveries(r.req.Filter); err != nil {
		return ReplayBatch{}, err
	}
	if !open {
		w.Add("(d.event_id, d.destination) <= (%s, %s) AND e.id <= %s", upto.EventID, upto.Destination, upto.EventID)
	}
	return r.rearm(ctx, w, "", nil)
}

// ReplayDeferred counts the deferred deliveries in flight that the
// replay's filter selects.
func (r replayer) ReplayDeferred(ctx context.Context) (int64, error) {
	w := NewWhere(r.o.b.Dialect)
	if err := w.FilterDeliveries(r.req.Filter); err != nil {
		return 0, err
	}
	var n int64
	err := r.o.b.Read.QueryRow(ctx, fmt.Sprintf(replayDeferred, deferredInFlight(r.o.b.Dialect), w.SQL()), w.Args()...).Scan(&n)
	return n, err
}

// ReplayAudit writes the audit row of the replay.
func (r replayer) ReplayAudit(ctx context.Context, res store.ReplayResult) error {
	_, err := r.o.b.Write.Exec(ctx, insertReplay, r.o.b.Dialect.Time(r.req.Now), r.req.Actor, AuditFilter(r.req.Filter),
		res.Matched, res.Rearmed, res.InFlight, r.req.DryRun)
	return err
}
