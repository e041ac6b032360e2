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
FROM deliveries d CROSS JOIN events e
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

	// replayRearm re-arms at ?2 the deliveries of a list at ?1 (%[1]s)
	// that are not processing, nor purged, when it reaches them, with a
	// condition on their status when the filter has one (%[2]s).
	replayRearm = `UPDATE deliveries AS d SET
	status = 'pending', attempts = 0, next_attempt_at = ?2,
	lease_until = NULL, lease_token = NULL, finished_at = NULL,
	last_error = '', last_status_code = 0,
	replay_count = d.replay_count + 1, updated_at = ?2
WHERE %[1]s AND d.status NOT IN ('processing', 'purged') %[2]s`

	// replayBusy counts the deliveries of a list (%[1]s) that are
	// processing, with a condition on their status when the filter has
	// one (%[2]s).
	replayBusy = `SELECT count(*) FROM deliveries d
WHERE %[1]s AND d.status = 'processing' %[2]s`

	insertReplay = `INSERT INTO replays (at, actor, filter, matched, rearmed, in_flight, dry_run, kind)
VALUES (?, ?, ?, ?, ?, ?, ?, 'replay')`
)

// Replay re-arms the deliveries of the events req.Filter selects (of its
// Destination and in its Status when set) in batches of
// Dialect.ReplayBatch (see RunReplay), each a transaction of its own:
// every one not processing becomes pending, due at req.Now (the current
// time when zero), with attempts 0, replay_count + 1, no lease and no
// finished_at, and its last error and status code cleared — they belong
// to the run the replay supersedes; the attempts table keeps them. A
// batch is read from the read connections, so that only its re-arming
// holds a writer; one that re-arms rows wakes the listeners of its
// destinations as it commits, so delivery starts before the replay ends.
// Without req.Progress, up to Dialect.ReplayStretches stretches of the
// selection are re-armed at once behind a walk that finds where they
// end; with it, batches run one after the other, so that a stop is
// exact. It then writes the audit row.
//
// InFlight counts the selected deliveries that were processing as their
// batch was re-armed, and Matched = Rearmed + InFlight. (A delivery that
// finishes while its batch is re-armed, after the re-arming passed it
// by, is counted in neither.) A dry run counts the same way, changes
// nothing, and still writes its audit row. A bad glob or status is
// store.ErrBadFilter.
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

// ReplayBatch counts, in one statement, or re-arms a batch.
func (r replayer) ReplayBatch(ctx context.Context, after ReplayKey, n int, dryRun bool) (ReplayBatch, error) {
	w := NewWhere(r.o.b.Dialect, after.EventID, after.Destination)
	if err := w.FilterDeliveries(r.req.Filter); err != nil {
		return ReplayBatch{}, err
	}
	limit := "LIMIT " + w.Arg(n)
	if !dryRun {
		return r.rearm(ctx, w, limit)
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
	return r.rearm(ctx, w, "")
}

// rearm reads the deliveries w selects, up to limit (a LIMIT clause, or
// none), and re-arms them in one transaction: those not processing are
// re-armed, then those processing counted, so that a delivery claimed
// meanwhile is counted once, in flight. When it re-arms any, the
// transaction wakes the listeners of the destinations read.
func (r replayer) rearm(ctx context.Context, w *Where, limit string) (ReplayBatch, error) {
	var (
		b     ReplayBatch
		ids   []int64
		dests []string
	)
	rows, err := r.o.b.Read.Query(ctx, fmt.Sprintf(replaySelection, w.SQL(), limit), w.Args()...)
	_, err = collect(rows, err, func(row Rows) (struct{}, error) {
		var (
			id   int64
			dest string
		)
		err := row.Scan(&id, &b.Last.EventID, &dest, new(string))
		b.Last.Destination = dest
		ids, dests = append(ids, id), append(dests, dest)
		return struct{}{}, err
	})
	if err != nil || len(ids) == 0 {
		return ReplayBatch{}, err
	}
	b.Selected = len(ids)
	d := r.o.b.Dialect
	list, cond := d.List(ids), ReplayStatus(r.req.Filter.Status)
	err = r.o.b.InTx(ctx, func(tx Conn) error {
		if d.AsyncCommit != "" { // the audit row's commit waits, for every batch
			if _, err := tx.Exec(ctx, d.AsyncCommit); err != nil {
				return err
			}
		}
		var err error
		if b.Rearmed, err = tx.Exec(ctx, fmt.Sprintf(replayRearm, d.in("d.id", "?1", "bigint"), cond), list, d.Time(r.req.Now)); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, fmt.Sprintf(replayBusy, d.in("d.id", "?", "bigint"), cond), list).Scan(&b.InFlight); err != nil {
			return fmt.Errorf("count in flight: %w", err)
		}
		if b.Rearmed == 0 {
			return nil
		}
		return r.o.notify(ctx, tx, dests)
	})
	if err != nil {
		return ReplayBatch{}, err // rolled back: nothing re-armed
	}
	return b, nil
}

// ReplayAudit writes the audit row of the replay.
func (r replayer) ReplayAudit(ctx context.Context, res store.ReplayResult) error {
	_, err := r.o.b.Write.Exec(ctx, insertReplay, r.o.b.Dialect.Time(r.req.Now), r.req.Actor, AuditFilter(r.req.Filter),
		res.Matched, res.Rearmed, res.InFlight, r.req.DryRun)
	return err
}
