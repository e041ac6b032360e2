package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// backfillCandidates reads the columns of the events the driver's
	// Dialect.BackfillIDs (%s) selects, in id order.
	backfillCandidates = `WITH c AS (
%s
)
SELECT ` + listColumns + `
FROM c JOIN hookrelay.events e ON e.id = c.id
ORDER BY e.id`

	// selectBodies returns the id and body of the events of a list (%s).
	selectBodies = `SELECT id, body, key_id FROM hookrelay.events WHERE %s`

	// createDeliveries inserts pending deliveries, due at ?2, for the
	// JSON array ?1 of [event, destination, ordering key] triples (%[1]s
	// is its table) whose event exists and was not purged, each ordered
	// by its event's occurred_at (received_at when it has none), in
	// (event, destination) order so that concurrent backfills take their
	// index locks in one order. An existing (event, destination) is
	// skipped, one leased at ingest whose row is deferred too (%[3]s is
	// Dialect.DeferredLeases): its outcome writes its row.
	//
	// Where rows are locked (%[2]s), the events are locked FOR SHARE as
	// they are read: an event a concurrent prune is deleting is waited
	// for and then skipped, so no delivery outlives its event (on
	// PostgreSQL no foreign key checks that), and one a concurrent purge
	// is erasing (its UPDATE conflicts with SHARE) is waited for and then
	// skipped, its purged_at checked again on the row the purge
	// committed; a purge that comes after waits for the insert and then
	// ends the deliveries it made. A prune that comes after skips the
	// locked events. Elsewhere the single writer runs the statement
	// alone.
	createDeliveries = `INSERT INTO hookrelay.deliveries (
	event_id, destination, status, ordering_key, next_attempt_at, order_at, created_at, updated_at
)
SELECT e.id, x.value ->> 1, 'pending', x.value ->> 2, ?2, coalesce(e.occurred_at, e.received_at), ?2, ?2
FROM %[1]s AS x JOIN hookrelay.events e ON e.id = x.value ->> 0
WHERE e.purged_at IS NULL
	AND NOT EXISTS (SELECT 1 FROM (%[3]s) AS l WHERE l.event_id = e.id AND l.destination = x.value ->> 1)
ORDER BY x.value ->> 0, x.value ->> 1
%[2]s
ON CONFLICT (event_id, destination) DO NOTHING`

	recordBackfill = `INSERT INTO hookrelay.replays (at, actor, filter, matched, rearmed, in_flight, dry_run, kind, created)
VALUES (?, ?, ?, 0, 0, 0, ?, 'backfill', ?)`
)

// BackfillCandidates returns up to limit events of sources received in
// [since, until), with ids after after (empty for the start), oldest
// first, that have no delivery to destination, without their bodies and
// headers. No sources, or a limit below 1, select nothing.
func (o *Ops) BackfillCandidates(ctx context.Context, destination string, sources []string, since, until time.Time, after string, limit int) ([]store.EventSummary, error) {
	what := "backfill candidates for " + destination
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	if len(sources) == 0 || limit < 1 || !since.Before(until) {
		return make([]store.EventSummary, 0), nil
	}
	d := o.b.Dialect
	from, before := IDRange(since, until)
	rows, err := o.b.Read.Query(ctx, fmt.Sprintf(backfillCandidates, d.BackfillIDs),
		d.List(sources), after, from, before, destination, limit, d.Time(since), d.Time(until))
	events, err := collect(rows, err, scanSummary)
	if err != nil {
		return nil, o.fail(ctx, what, err)
	}
	return events, nil
}

// EventBodies returns the bodies of the events ids, by id.
func (o *Ops) EventBodies(ctx context.Context, ids []string) (map[string][]byte, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("read event bodies: %w", err)
	}
	defer release()
	bodies := make(map[string][]byte, len(ids))
	if len(ids) == 0 {
		return bodies, nil
	}
	d := o.b.Dialect
	rows, err := o.b.Read.Query(ctx, fmt.Sprintf(selectBodies, d.in("id", "?", "text")), d.List(ids))
	_, err = collect(rows, err, func(row Rows) (struct{}, error) {
		var (
			id    string
			body  []byte
			keyID *string
		)
		if err := row.Scan(&id, &body, &keyID); err != nil {
			return struct{}{}, err
		}
		var err error
		bodies[id], err = o.b.Payloads.OpenBody(id, body, keyID)
		return struct{}{}, err
	})
	if err != nil {
		return nil, o.fail(ctx, "read event bodies", err)
	}
	return bodies, nil
}

// CreateDeliveries inserts, in one statement, pending deliveries due at
// now (the current time when zero), ordered by their events' occurred_at
// (received_at when absent), skipping any (event, destination) that
// exists and any event that does not (pruned meanwhile) or was purged,
// and returns how many it created. When it creates any, the transaction
// wakes the listeners of the destinations given.
func (o *Ops) CreateDeliveries(ctx context.Context, ds []store.BackfillDelivery, now time.Time) (int64, error) {
	release, err := o.enter()
	if err != nil {
		return 0, fmt.Errorf("create deliveries: %w", err)
	}
	defer release()
	if len(ds) == 0 {
		return 0, nil
	}
	var created int64
	err = o.b.InTx(ctx, func(tx Conn) error {
		created, err = o.createDeliveries(ctx, tx, ds, now)
		return err
	})
	if err != nil {
		return 0, o.fail(ctx, "create deliveries", err)
	}
	return created, nil
}

// CreateJobDeliveries creates deliveries as CreateDeliveries does, and
// writes the progress of the backfill job tied to them in the same
// transaction (see tieJob), also for a page that creates none.
func (o *Ops) CreateJobDeliveries(ctx context.Context, ds []store.BackfillDelivery, now time.Time, tie store.JobTie, progress func(created int64) store.JobProgress) (int64, string, error) {
	what := "create deliveries of job " + tie.ID
	release, err := o.enter()
	if err != nil {
		return 0, "", fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	var (
		created     int64
		cancelledBy string
	)
	err = o.b.InTx(ctx, func(tx Conn) error {
		if created, err = o.createDeliveries(ctx, tx, ds, now); err != nil {
			return err
		}
		cancelledBy, err = o.tieJob(ctx, tx, tie, progress(created))
		return err
	})
	if err != nil {
		return 0, "", o.fail(ctx, what, err)
	}
	return created, cancelledBy, nil
}

// createDeliveries inserts the deliveries ds in tx (see CreateDeliveries)
// and wakes the listeners of their destinations when it created any.
func (o *Ops) createDeliveries(ctx context.Context, tx Conn, ds []store.BackfillDelivery, now time.Time) (int64, error) {
	if len(ds) == 0 {
		return 0, nil
	}
	if now.IsZero() {
		now = time.Now()
	}
	triples := make([][3]string, len(ds))
	dests := make([]string, len(ds))
	for i, d := range ds {
		triples[i] = [3]string{d.EventID, d.Destination, store.OrderingKey(d.OrderingKey)}
		dests[i] = d.Destination
	}
	b, _ := json.Marshal(triples) // cannot fail for strings
	d := o.b.Dialect
	query := fmt.Sprintf(createDeliveries, fmt.Sprintf(d.JSONRows, "?1"), d.locking("FOR SHARE OF e"), d.DeferredLeases)
	if d.RetireLock != "" {
		if _, err := tx.Exec(ctx, d.RetireLock); err != nil {
			return 0, err
		}
	}
	n, err := tx.Exec(ctx, query, string(b), d.Time(now))
	if err != nil || n == 0 {
		return 0, err
	}
	return n, o.notify(ctx, tx, dests)
}

// RecordBackfill writes the audit row of a backfill: kind 'backfill', the
// destination and window as its filter, and created.
func (o *Ops) RecordBackfill(ctx context.Context, actor, destination string, since, until time.Time, created int64, dryRun bool, now time.Time) error {
	what := "record backfill of " + destination
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	if now.IsZero() {
		now = time.Now()
	}
	filter := AuditBackfill(destination, since, until)
	if _, err := o.b.Write.Exec(ctx, recordBackfill, o.b.Dialect.Time(now), actor, filter, dryRun, created); err != nil {
		return o.fail(ctx, what, err)
	}
	return nil
}
