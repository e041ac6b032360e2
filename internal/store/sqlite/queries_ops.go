package sqlite

// The SQL of the operator side (store.Operations), next to migrations/.
// Listing and replay build their WHERE clause from the filter (see
// sqlstore.Where and dialect); their fixed parts are here. Times are unix
// microseconds.

const (
	// backfillIDs is the Dialect's BackfillIDs: the sources are a JSON
	// array.
	backfillIDs = `SELECT e.id FROM hookrelay.events e
WHERE e.source IN (SELECT value FROM json_each(?1)) AND e.id > ?2 AND e.id >= ?3 AND e.id < ?4
	AND e.received_at >= ?7 AND e.received_at < ?8
	AND e.purged_at IS NULL
	AND NOT EXISTS (SELECT 1 FROM hookrelay.deliveries d WHERE d.event_id = e.id AND d.destination = ?5)
ORDER BY e.id
LIMIT ?6`

	// statsCounts returns the deliveries' counts by destination and
	// status, those not zero, as the triggers of migration 0004 keep
	// them.
	statsCounts = `SELECT destination, status, n FROM hookrelay.delivery_counts WHERE n <> 0`

	// statsOldestDue returns the earliest next_attempt_at of destination
	// ?1's pending or failed deliveries due at ?2: the first entry of
	// the destination's part of the due index, whatever its backlog.
	statsOldestDue = `SELECT next_attempt_at FROM hookrelay.deliveries
WHERE destination = ?1 AND status IN ('pending', 'failed') AND next_attempt_at <= ?2
ORDER BY next_attempt_at
LIMIT 1`

	statsSources = `SELECT source, received, duplicates, rejected FROM hookrelay.ingest_counts`

	// countIngest adds counts to one source's row.
	countIngest = `INSERT INTO hookrelay.ingest_counts (source, received, duplicates, rejected)
VALUES (?, ?, ?, ?)
ON CONFLICT (source) DO UPDATE SET
	received = received + excluded.received,
	duplicates = duplicates + excluded.duplicates,
	rejected = rejected + excluded.rejected`
)
