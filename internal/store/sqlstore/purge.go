package sqlstore

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

// The statements of erasure (store.Erasure) take a list of events, matched
// with Dialect.InIDs: each is a format whose %s is that condition, and
// whose arguments are those it lists, then the events'. A purge clears
// what the events' payloads reached; key_id goes with the sealed bytes:
// the empty body, headers, query and snippets are stored plain.

const (
	// purgeEvents empties the payload of the events that are not purged
	// yet (to no bytes) and writes their tombstone (time, actor,
	// reason); it returns their ids. Two purges of one event at once: in PostgreSQL the
	// second waits for the first's row lock, checks purged_at again on
	// the row the first committed, and passes it by; in SQLite they do
	// not overlap.
	purgeEvents = `UPDATE hookrelay.events SET
	body = ?, headers = '{}', raw_query = '', key_id = NULL,
	purged_at = ?, purged_by = ?, purge_reason = ?
WHERE %s AND purged_at IS NULL
RETURNING id`

	// purgeDeliveries ends the live deliveries of the events (finished
	// and updated at the time, with a note), their lease cleared so that
	// a late holder's outcome is refused. In PostgreSQL a delivery a
	// claim holds locked is waited for and checked again (now
	// processing, it is ended too); one this statement locked first, a
	// claim's SKIP LOCKED passes by.
	purgeDeliveries = `UPDATE hookrelay.deliveries SET
	status = 'purged', lease_until = NULL, lease_token = NULL,
	finished_at = ?, updated_at = ?, last_error = ?
WHERE %s AND status IN ('pending', 'failed', 'processing')`

	// purgeDeferred writes the deferred deliveries of the events still in
	// flight (deferredInFlight, %[2]s; its condition on x.event_id,
	// %[3]s), ended as purgeDeliveries ends a live one: its holder's
	// outcome then finds a row and is refused, the sweep of its lease
	// passes it by, and it is counted purged. %[1]s is Dialect.KeepIDs.
	purgeDeferred = `INSERT INTO hookrelay.deliveries (
	id, event_id, destination, status, attempts, ordering_key, next_attempt_at, order_at,
	finished_at, updated_at, last_error, created_at
)
%[1]s
SELECT x.id, x.event_id, x.destination, 'purged', 1, '', e.received_at, coalesce(e.occurred_at, e.received_at),
	?, ?, ?, e.received_at
FROM %[2]s JOIN hookrelay.events e ON e.id = x.event_id
WHERE %[3]s
ON CONFLICT DO NOTHING`

	// purgeOrderingKeys clears the ordering keys of the events'
	// deliveries, values read from the body; all are final now.
	purgeOrderingKeys = `UPDATE hookrelay.deliveries SET ordering_key = ''
WHERE %s AND ordering_key <> ''`

	// purgeSnippets clears the response snippets and the headers of the
	// attempts of the events' deliveries (to no bytes): a destination may
	// echo what it was sent, and a request forwards the provider's
	// headers.
	purgeSnippets = `UPDATE hookrelay.attempts SET response_snippet = ?, headers = ?, key_id = NULL
WHERE delivery_id IN (SELECT id FROM hookrelay.deliveries WHERE %s)
	AND (length(response_snippet) > 0 OR length(headers) > 0 OR key_id IS NOT NULL)`

	selectTombstones = `SELECT id, purged_at, coalesce(purged_by, ''), coalesce(purge_reason, '') FROM hookrelay.events
WHERE %s AND purged_at IS NOT NULL`

	recordPurge = `INSERT INTO hookrelay.replays (at, actor, filter, matched, rearmed, in_flight, dry_run, kind, purged)
VALUES (?, ?, ?, ?, 0, 0, ?, 'purge', ?)`
)

// noBytes is what a purge leaves in a column of bytes: empty, not NULL.
var noBytes = []byte{}

// ofEvents returns the statement format with the condition that column
// is one of ids, and its arguments: args, then those of the condition.
func (o *Ops) ofEvents(format, column string, ids []string, args ...any) (string, []any) {
	w := NewWhere(o.b.Dialect, args...)
	o.b.Dialect.InIDs(w, []string{column}, ids)
	return fmt.Sprintf(format, w.SQL()), w.Args()
}

// PurgeEvents erases the payload of the events req.IDs not purged yet,
// ends their live deliveries (those leased at ingest whose rows are
// deferred too, written purged) and writes their tombstones, in one write
// transaction. The events are updated first: a backfill that would give
// one a delivery meanwhile waits for the purge and then passes it by.
func (o *Ops) PurgeEvents(ctx context.Context, req store.PurgeRequest) (store.PurgeResult, error) {
	if err := CheckPurge(req); err != nil {
		return store.PurgeResult{}, err
	}
	release, err := o.enter()
	if err != nil {
		return store.PurgeResult{}, fmt.Errorf("purge: %w", err)
	}
	defer release()
	res := store.PurgeResult{Purged: []string{}}
	if len(req.IDs) == 0 {
		return res, nil
	}
	err = o.b.InTx(ctx, func(tx Conn) error {
		q, args := o.ofEvents(purgeEvents, "id", req.IDs, noBytes, o.b.Dialect.Time(req.Now), req.Actor, req.Reason)
		rows, err := tx.Query(ctx, q, args...)
		if res.Purged, err = collect(rows, err, func(row Rows) (string, error) {
			var id string
			err := row.Scan(&id)
			return id, err
		}); err != nil || len(res.Purged) == 0 {
			return err
		}
		at := o.b.Dialect.Time(req.Now)
		q, args = o.ofEvents(purgeDeliveries, "event_id", res.Purged, at, at, PurgeNote(req.Actor))
		if res.Ended, err = tx.Exec(ctx, q, args...); err != nil {
			return err
		}
		d := o.b.Dialect
		w := NewWhere(d, at, at, PurgeNote(req.Actor))
		d.InIDs(w, []string{"x.event_id"}, res.Purged)
		deferred, err := tx.Exec(ctx, fmt.Sprintf(purgeDeferred, d.KeepIDs, deferredInFlight(d), w.SQL()), w.Args()...)
		if err != nil {
			return fmt.Errorf("end deferred deliveries: %w", err)
		}
		res.Ended += deferred
		q, args = o.ofEvents(purgeOrderingKeys, "event_id", res.Purged)
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return err
		}
		q, args = o.ofEvents(purgeSnippets, "event_id", res.Purged, noBytes, noBytes)
		_, err = tx.Exec(ctx, q, args...)
		return err
	})
	if err != nil {
		return store.PurgeResult{Purged: []string{}}, o.fail(ctx, "purge", err)
	}
	return res, nil
}

// Tombstones returns the tombstones of the purged events among ids.
func (o *Ops) Tombstones(ctx context.Context, ids []string) (map[string]store.Tombstone, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("read tombstones: %w", err)
	}
	defer release()
	out := make(map[string]store.Tombstone)
	if len(ids) == 0 {
		return out, nil
	}
	q, args := o.ofEvents(selectTombstones, "id", ids)
	rows, err := o.b.Read.Query(ctx, q, args...)
	ts, err := collect(rows, err, func(row Rows) (store.Tombstone, error) {
		var t store.Tombstone
		err := row.Scan(&t.EventID, At(&t.PurgedAt), &t.Actor, &t.Reason)
		return t, err
	})
	if err != nil {
		return nil, o.fail(ctx, "read tombstones", err)
	}
	for _, t := range ts {
		out[t.EventID] = t
	}
	return out, nil
}

// RecordPurge writes the audit row of a purge.
func (o *Ops) RecordPurge(ctx context.Context, a store.PurgeAudit) error {
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("record purge: %w", err)
	}
	defer release()
	_, err = o.b.Write.Exec(ctx, recordPurge, o.b.Dialect.Time(a.Now), a.Actor, AuditPurge(a), a.Matched, a.DryRun, a.Purged)
	if err != nil {
		return o.fail(ctx, "record purge", err)
	}
	return nil
}
