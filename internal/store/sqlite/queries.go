package sqlite

import (
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

// The SQL of this driver, next to migrations/. Times are unix microseconds.

const (
	createSchemaMigrations = `CREATE TABLE IF NOT EXISTS hookrelay.schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
)`

	migrationApplied = `SELECT count(*) FROM hookrelay.schema_migrations WHERE version = ?`

	recordMigration = `INSERT INTO hookrelay.schema_migrations (version, applied_at) VALUES (?, ?)`

	pingQuery = `PRAGMA schema_version`

	journalModeQuery = `PRAGMA journal_mode`

	// insertEvents* make a multi-row insert of events: RETURNING lists the
	// ids inserted; a duplicate (source, provider_event_id), also of an
	// earlier row of the same statement, is skipped and returns nothing.
	insertEventsHead = `INSERT INTO hookrelay.events (
	id, source, provider_event_id, id_origin, type, body, content_type,
	headers, signature_slot, occurred_at, received_at, key_id, signature_digest, raw_query
) VALUES `
	insertEventsRow  = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	insertEventsTail = `
ON CONFLICT (source, provider_event_id) DO NOTHING
RETURNING id`

	// claimDigests* claim signature digests for provider ids, one row per
	// (source, digest) (see Store.claimDigests): a digest the source does
	// not hold yet is inserted; one it holds is returned when held by the
	// same provider id (a provider's retry: received_at is kept) or held
	// past store.ReplayWindow (taken over), and otherwise left as it is
	// and not returned. The tail is completed with the window in
	// microseconds (claimDigestsTail).
	claimDigestsHead = `INSERT INTO hookrelay.signature_digests AS h (source, digest, provider_event_id, received_at)
VALUES `
	claimDigestsRow = `(?, ?, ?, ?)`

	// eventStored tells whether the source ?1 holds an event under the
	// provider id ?2.
	eventStored = `SELECT EXISTS (SELECT 1 FROM hookrelay.events WHERE source = ?1 AND provider_event_id = ?2)`

	// insertDeliveries* create pending deliveries due at the event's
	// received_at and ordered by its occurred_at (received_at when it has
	// none). A destination listed twice for one event is one row.
	insertDeliveriesHead = `INSERT INTO hookrelay.deliveries (
	event_id, destination, status, ordering_key, next_attempt_at, order_at, created_at, updated_at
) VALUES `
	insertDeliveriesRow  = `(?, ?, 'pending', ?, ?, ?, ?, ?)`
	insertDeliveriesTail = `
ON CONFLICT (event_id, destination) DO NOTHING`

	// insertLeasedDeliveries* create deliveries leased at ingest, as a
	// claim leaves them: processing, the attempt counted, with the lease
	// token and its end. RETURNING tells which rows were created, so that
	// each lease learns its delivery's id; the pending rows, most of a
	// backlog's, keep their statement without it.
	insertLeasedDeliveriesHead = `INSERT INTO hookrelay.deliveries (
	event_id, destination, status, attempts, ordering_key, next_attempt_at, order_at, lease_until, lease_token,
	created_at, updated_at
) VALUES `
	insertLeasedDeliveriesRow  = `(?, ?, 'processing', 1, ?, ?, ?, ?, ?, ?, ?)`
	insertLeasedDeliveriesTail = `
ON CONFLICT (event_id, destination) DO NOTHING
RETURNING id, event_id, destination`

	// The delivery queue. Its statements number their parameters, so that
	// keyIsFree can name the same ones in several places.

	// keyIsFree holds for a candidate c of destination ?1 at time ?2 that
	// has no ordering key, or that is its key's head — no live delivery
	// of the key comes before it by (order_at, id) — while no delivery of
	// the key holds a live lease.
	keyIsFree = `(c.ordering_key = '' OR (
		NOT EXISTS (
			SELECT 1 FROM hookrelay.deliveries h
			WHERE h.destination = ?1 AND h.ordering_key = c.ordering_key
				AND h.status IN ('pending', 'failed', 'processing') AND h.ordering_key <> ''
				AND h.order_at <= c.order_at AND (h.order_at < c.order_at OR h.id < c.id)
		) AND NOT EXISTS (
			SELECT 1 FROM hookrelay.deliveries l
			WHERE l.destination = ?1 AND l.status = 'processing' AND l.lease_until > ?2
				AND l.ordering_key = c.ordering_key
		)
	))`

	// insertLostAttempts records the attempts of up to ?3 deliveries of
	// destination ?1 whose lease ran out by ?2 as lost, with the error
	// ?4: attempted when the claim leased them (updated_at, which only a
	// claim and an outcome set), lasting their lease. It returns their
	// ids, for markLost. Run on the writer, inside the claim's
	// transaction: no holder is inside CompleteWithin meanwhile, since
	// that holds the writer too.
	insertLostAttempts = `INSERT INTO hookrelay.attempts (delivery_id, attempted_at, duration_ms, error, round)
SELECT id, updated_at, (lease_until - updated_at) / 1000, ?4, replay_count FROM hookrelay.deliveries
WHERE destination = ?1 AND status = 'processing' AND lease_until <= ?2
ORDER BY lease_until, id
LIMIT ?3
RETURNING delivery_id`

	// markLost ends the leases of the deliveries of the JSON array ?1,
	// whose attempts insertLostAttempts recorded as lost, at ?3, with
	// the error ?4: dead when their attempts have reached ?2, failed
	// otherwise, due as they were, so that the claim that follows takes
	// them again at once, in their place in the queue. It returns the
	// ids of the dead ones.
	markLost = `UPDATE hookrelay.deliveries SET
	status = CASE WHEN attempts >= ?2 THEN 'dead' ELSE 'failed' END,
	finished_at = CASE WHEN attempts >= ?2 THEN ?3 END,
	last_error = ?4, last_status_code = 0, lease_until = NULL, lease_token = NULL, updated_at = ?3
WHERE id IN (SELECT value FROM json_each(?1))
RETURNING id, status = 'dead'`

	// selectClaimable returns, in order, the ids of up to ?3 deliveries
	// of destination ?1 claimable at ?2: due ones from the due index and
	// expired leases from the processing index, each in (next_attempt_at,
	// id) order, merged; expired leases only when ?4 is 1, which it is
	// not when insertLostAttempts and markLost ran first and turned them
	// into due deliveries or dead ones (?4 + 0, as the limits below, so
	// that the planner does not read its value). Its limits are the expression ?3 + 0, not ?3: the
	// planner reads a bare parameter's value, and SQLite then prepares the
	// statement again whenever a claim asks for a different number of
	// rows, which a busy worker does all the time.
	selectClaimable = `SELECT id FROM (
	SELECT * FROM (
		SELECT c.id, c.next_attempt_at FROM hookrelay.deliveries c
		WHERE c.destination = ?1 AND c.status IN ('pending', 'failed') AND c.next_attempt_at <= ?2
			AND ` + keyIsFree + `
		ORDER BY c.next_attempt_at, c.id
		LIMIT ?3 + 0
	)
	UNION ALL
	SELECT * FROM (
		SELECT c.id, c.next_attempt_at FROM hookrelay.deliveries c
		WHERE c.destination = ?1 AND c.status = 'processing' AND c.lease_until <= ?2 AND ?4 + 0 = 1
			AND ` + keyIsFree + `
		ORDER BY c.next_attempt_at, c.id
		LIMIT ?3 + 0
	)
)
ORDER BY next_attempt_at, id
LIMIT ?3 + 0`

	// claimRows* lease many deliveries in one statement, each row (id,
	// lease token, lease end, now) applied to its delivery. A VALUES list
	// costs SQLite less per row than a JSON array. They return nothing: a
	// claim reads its rows first, with selectClaimed, and sets what the
	// lease changed itself, which costs SQLite less than RETURNING, whose
	// rows it gathers in a temporary table, and a second read of the
	// events.
	claimRowsHead = `UPDATE hookrelay.deliveries SET
	status = 'processing', lease_token = p.column2, lease_until = p.column3,
	attempts = attempts + 1, updated_at = p.column4
FROM (VALUES `
	claimRowsRow  = `(?, ?, ?, ?)`
	claimRowsTail = `) AS p
WHERE hookrelay.deliveries.id = p.column1`

	// selectClaimed* return the deliveries whose ids are listed, as they
	// are before the claim leases them, with their events.
	selectClaimedHead = `SELECT
	d.id, d.event_id, d.destination, d.status, d.attempts, d.replay_count, d.ordering_key,
	d.next_attempt_at, d.lease_until, d.last_error, d.last_status_code,
	d.created_at, d.updated_at, d.finished_at,
	e.id, e.source, e.provider_event_id, e.id_origin, e.type, e.body, e.content_type,
	e.headers, e.signature_slot, e.occurred_at, e.received_at, e.key_id
FROM hookrelay.deliveries d JOIN hookrelay.events e ON e.id = d.event_id WHERE d.id IN (`
	selectClaimedRow  = `?`
	selectClaimedTail = `)`

	// completeDeliveries* set the outcomes of many deliveries in one
	// statement, each row (id, lease token, status, next attempt or NULL
	// to keep it, error, status code, finished at, now, failure kind,
	// attempt start, attempt duration) applied to its delivery provided
	// it is still processing under that lease token, and return the ids
	// whose lease held.
	completeDeliveriesHead = `UPDATE hookrelay.deliveries SET
	status = v.column3, next_attempt_at = coalesce(v.column4, hookrelay.deliveries.next_attempt_at),
	last_error = v.column5, last_status_code = v.column6, finished_at = v.column7,
	lease_until = NULL, lease_token = NULL, updated_at = v.column8, failure_kind = v.column9,
	last_attempted_at = v.column10, last_duration_ms = v.column11
FROM (VALUES `
	completeDeliveriesRow  = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	completeDeliveriesTail = `) AS v
WHERE hookrelay.deliveries.id = v.column1 AND hookrelay.deliveries.status = 'processing' AND hookrelay.deliveries.lease_token = v.column2
RETURNING hookrelay.deliveries.id`

	// insertAttempts* record many attempts in one statement, in the order
	// of its rows, each in its delivery's current replay round: the
	// delivery's id is bound twice.
	insertAttemptsHead = `INSERT INTO hookrelay.attempts (
	delivery_id, attempted_at, duration_ms, status_code, error, response_snippet, key_id, headers, round
) VALUES `
	insertAttemptsRow  = `(?, ?, ?, ?, ?, ?, ?, ?, (SELECT replay_count FROM hookrelay.deliveries WHERE id = ?))`
	insertAttemptsTail = ``

	// releaseDeliveries hands back the deliveries of the JSON array ?1 of
	// [id, lease token] pairs still held under those tokens, due by ?2 at
	// the latest, without the attempt their claim counted.
	releaseDeliveries = `UPDATE hookrelay.deliveries SET
	status = CASE WHEN attempts <= 1 THEN 'pending' ELSE 'failed' END,
	attempts = max(attempts - 1, 0),
	next_attempt_at = min(next_attempt_at, ?2),
	lease_until = NULL, lease_token = NULL, updated_at = ?2
FROM json_each(?1) AS r
WHERE hookrelay.deliveries.id = r.value ->> 0 AND hookrelay.deliveries.status = 'processing' AND hookrelay.deliveries.lease_token = r.value ->> 1`

	// nextDue is the earliest due time or lease end of destination ?'s
	// live deliveries, or of a batch of deferred deliveries, or NULL.
	nextDue = `SELECT min(at) FROM (
	SELECT min(next_attempt_at) AS at FROM hookrelay.deliveries WHERE destination = ?1 AND status IN ('pending', 'failed')
	UNION ALL
	SELECT min(lease_until) FROM hookrelay.deliveries WHERE destination = ?1 AND status = 'processing'
	UNION ALL
	SELECT min(lease_until) FROM hookrelay.delivery_leases
)`
)

// The tables earlier versions created without the hookrelay_ prefix,
// which Migrate renames (see renameLegacy).
const (
	// selectLegacy is true when the file holds hookrelay's unprefixed
	// schema_migrations and deliveries, and no prefixed
	// schema_migrations.
	selectLegacy = `SELECT
	EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations')
	AND EXISTS (SELECT 1 FROM pragma_table_info('deliveries') WHERE name = 'lease_token')
	AND NOT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'hookrelay.schema_migrations')`

	// tableExists is true when the table ? exists.
	tableExists = `SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?)`
)

// claimDigestsTail ends claimDigests*, with store.ReplayWindow written in.
var claimDigestsTail = fmt.Sprintf(`
ON CONFLICT (source, digest) DO UPDATE SET
	provider_event_id = excluded.provider_event_id,
	received_at = CASE WHEN h.provider_event_id = excluded.provider_event_id AND h.received_at >= excluded.received_at - %[1]d
		THEN h.received_at ELSE excluded.received_at END
WHERE h.provider_event_id = excluded.provider_event_id OR h.received_at < excluded.received_at - %[1]d
RETURNING source, digest, provider_event_id`, store.ReplayWindow.Microseconds())
