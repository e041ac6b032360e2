package postgres

// The SQL of erasure (store.Erasure). Each statement takes the events $1.

const (
	// purgeEvents empties the payload of the events that are not purged
	// yet and writes their tombstone ($2 time, $3 actor, $4 reason); it
	// returns their ids. key_id goes with the sealed bytes: the empty
	// body, headers and query are stored plain. Two purges of one event at once:
	// the second waits for the first's row lock, checks purged_at again on
	// the row the first committed, and passes it by.
	purgeEvents = `UPDATE events SET
	body = '\x'::bytea, headers = '{}', raw_query = '', key_id = NULL, purged_at = $2, purged_by = $3, purge_reason = $4
WHERE id = ANY($1::text[]) AND purged_at IS NULL
RETURNING id`

	// purgeDeliveries ends the live deliveries of the events, at $2 with
	// the note $3, their lease cleared so that a late holder's outcome is
	// refused. A delivery a claim holds locked is waited for and checked
	// again (now processing, it is ended too); one this statement locked
	// first, a claim's SKIP LOCKED passes by.
	purgeDeliveries = `UPDATE deliveries SET
	status = 'purged', lease_until = NULL, lease_token = NULL,
	finished_at = $2, updated_at = $2, last_error = $3
WHERE event_id = ANY($1::text[]) AND status IN ('pending', 'failed', 'processing')`

	// purgeOrderingKeys clears the ordering keys of the events'
	// deliveries, values read from the body; all are final now.
	purgeOrderingKeys = `UPDATE deliveries SET ordering_key = ''
WHERE event_id = ANY($1::text[]) AND ordering_key <> ''`

	// purgeSnippets clears the response snippets of the attempts of the
	// events' deliveries: a destination may echo what it was sent.
	purgeSnippets = `UPDATE attempts SET response_snippet = '\x'::bytea, key_id = NULL
WHERE delivery_id IN (SELECT id FROM deliveries WHERE event_id = ANY($1::text[]))
	AND (octet_length(response_snippet) > 0 OR key_id IS NOT NULL)`

	selectTombstones = `SELECT id, purged_at, coalesce(purged_by, ''), coalesce(purge_reason, '') FROM events
WHERE id = ANY($1::text[]) AND purged_at IS NOT NULL`

	recordPurge = `INSERT INTO replays (at, actor, filter, matched, rearmed, in_flight, dry_run, kind, purged)
VALUES ($1, $2, $3, $4, 0, 0, $5, 'purge', $6)`
)

const (
	// insertAuditKey makes the audit key ($1 its name, $2 its bytes)
	// unless it exists; selectAuditKey reads the one that stands.
	insertAuditKey = `INSERT INTO instance_keys (name, key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`
	selectAuditKey = `SELECT key FROM instance_keys WHERE name = $1`
)
