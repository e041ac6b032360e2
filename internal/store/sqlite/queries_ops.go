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
)
