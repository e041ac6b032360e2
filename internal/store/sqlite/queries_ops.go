package sqlite

// The SQL of the operator side (store.Operations), next to migrations/.
// Listing and replay build their WHERE clause from the filter (see
// sqlstore.Where and dialect); their fixed parts are here. Times are unix
// microseconds.

const (
	// listColumns are an event's columns but its body and headers, and
	// the body's size, which SQLite reads from the record header without
	// loading the body; a sealed body is payloadcrypt.Overhead (28) bytes
	// longer than the body.
	listColumns = `e.id, e.source, e.provider_event_id, e.id_origin, e.type, e.content_type,
	e.signature_slot, e.occurred_at, e.received_at,
	length(e.body) - CASE WHEN e.key_id IS NULL THEN 0 ELSE 28 END`

	// listEvents selects a page of events, newest first by id: the
	// conditions of its filter and cursor (%[1]s) and the placeholder of
	// its limit (%[2]s) are spliced in.
	listEvents = `SELECT ` + listColumns + `
FROM events e
WHERE %[1]s
ORDER BY e.id DESC
LIMIT %[2]s`

	// listDeliveries returns the delivery states of the events of the
	// JSON array ?, by event and destination.
	listDeliveries = `SELECT event_id, id, destination, status, attempts
FROM deliveries WHERE event_id IN (SELECT value FROM json_each(?))
ORDER BY event_id, destination`

	// backfillIDs is the Dialect's BackfillIDs: the sources are a JSON
	// array.
	backfillIDs = `SELECT e.id FROM events e
WHERE e.source IN (SELECT value FROM json_each(?1)) AND e.id > ?2 AND e.id >= ?3 AND e.id < ?4
	AND e.received_at >= ?7 AND e.received_at < ?8
	AND e.purged_at IS NULL
	AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.destination = ?5)
ORDER BY e.id
LIMIT ?6`

	// statsCounts returns the deliveries' counts by destination and
	// status, those not zero, as the triggers of migration 0004 keep
	// them.
	statsCounts = `SELECT destination, status, n FROM delivery_counts WHERE n <> 0`

	// statsOldestDue returns the earliest next_attempt_at of destination
	// ?1's pending or failed deliveries due at ?2: the first entry of
	// the destination's part of the due index, whatever its backlog.
	statsOldestDue = `SELECT next_attempt_at FROM deliveries
WHERE destination = ?1 AND status IN ('pending', 'failed') AND next_attempt_at <= ?2
ORDER BY next_attempt_at
LIMIT 1`

	statsSources = `SELECT source, received, duplicates, rejected FROM ingest_counts`

	// countIngest adds counts to one source's row.
	countIngest = `INSERT INTO ingest_counts (source, received, duplicates, rejected)
VALUES (?, ?, ?, ?)
ON CONFLICT (source) DO UPDATE SET
	received = received + excluded.received,
	duplicates = duplicates + excluded.duplicates,
	rejected = rejected + excluded.rejected`
)
