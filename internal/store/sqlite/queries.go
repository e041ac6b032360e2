package sqlite

// The SQL of this driver, next to migrations/. Times are unix microseconds.

const (
	createSchemaMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	applied_at INTEGER NOT NULL
)`

	migrationApplied = `SELECT count(*) FROM schema_migrations WHERE version = ?`

	recordMigration = `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`

	pingQuery = `PRAGMA schema_version`

	journalModeQuery = `PRAGMA journal_mode`

	// insertEvent returns the id only when the row was inserted; a
	// duplicate (source, provider_event_id) returns no row.
	insertEvent = `INSERT INTO events (
	id, source, provider_event_id, id_origin, type, body, content_type,
	headers, signature_slot, occurred_at, received_at
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (source, provider_event_id) DO NOTHING
RETURNING id`

	// insertDelivery creates a pending delivery due at the event's
	// received_at. A destination listed twice for one event is one row.
	insertDelivery = `INSERT INTO deliveries (
	event_id, destination, status, ordering_key, next_attempt_at, created_at, updated_at
) VALUES (?, ?, 'pending', ?, ?, ?, ?)
ON CONFLICT (event_id, destination) DO NOTHING`

	selectEvent = `SELECT
	id, source, provider_event_id, id_origin, type, body, content_type,
	headers, signature_slot, occurred_at, received_at
FROM events WHERE id = ?`

	selectEventByProviderID = `SELECT
	id, source, provider_event_id, id_origin, type, body, content_type,
	headers, signature_slot, occurred_at, received_at
FROM events WHERE source = ? AND provider_event_id = ?`

	countEvents = `SELECT count(*) FROM events`

	countSourceEvents = `SELECT count(*) FROM events WHERE source = ?`

	selectEventDeliveries = `SELECT
	id, event_id, destination, status, attempts, replay_count, ordering_key,
	next_attempt_at, lease_until, last_error, last_status_code,
	created_at, updated_at, finished_at
FROM deliveries WHERE event_id = ? ORDER BY destination`

	insertRejection = `INSERT INTO rejections (
	at, source, reason, remote_addr, body_size, skew_ms
) VALUES (?, ?, ?, ?, ?, ?)`

	selectRejections = `SELECT id, at, source, reason, remote_addr, body_size, skew_ms
FROM rejections ORDER BY id DESC LIMIT ?`

	// trimRejections deletes every row older than the newest ? rows.
	trimRejections = `DELETE FROM rejections WHERE id <= (
	SELECT id FROM rejections ORDER BY id DESC LIMIT 1 OFFSET ?
)`
)
