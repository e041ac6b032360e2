package postgres

// The SQL of this driver, next to migrations/.

const (
	// migrateLockKey is the pg_advisory_xact_lock key that serializes
	// migrations across processes ("hookrely" in ASCII).
	migrateLockKey int64 = 0x686f6f6b72656c79

	lockMigrations = `SELECT pg_advisory_xact_lock($1)`

	createSchemaMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
)`

	selectMigrations = `SELECT version FROM schema_migrations`

	recordMigration = `INSERT INTO schema_migrations (version) VALUES ($1)`

	// ingestItem inserts one event and, only when it was not a duplicate,
	// one pending delivery per destination, due at the event's
	// received_at; it returns 1 when the event was inserted, else 0. The
	// foreign key from the deliveries to the event inserted in the same
	// statement holds, because it is checked at the end of the statement.
	// A destination listed twice for one event is one row.
	ingestItem = `WITH ins AS (
	INSERT INTO events (
		id, source, provider_event_id, id_origin, type, body, content_type,
		headers, signature_slot, occurred_at, received_at
	) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
	ON CONFLICT (source, provider_event_id) DO NOTHING
	RETURNING id, received_at
), d AS (
	INSERT INTO deliveries (
		event_id, destination, status, ordering_key, next_attempt_at, created_at, updated_at
	)
	SELECT ins.id, x.destination, 'pending', x.ordering_key, ins.received_at, now(), now()
	FROM ins CROSS JOIN unnest($12::text[], $13::text[]) WITH ORDINALITY AS x(destination, ordering_key, n)
	ORDER BY x.n
	ON CONFLICT (event_id, destination) DO NOTHING
)
SELECT count(*) FROM ins`

	selectEvent = `SELECT
	id, source, provider_event_id, id_origin, type, body, content_type,
	headers, signature_slot, occurred_at, received_at
FROM events WHERE id = $1`

	selectEventByProviderID = `SELECT
	id, source, provider_event_id, id_origin, type, body, content_type,
	headers, signature_slot, occurred_at, received_at
FROM events WHERE source = $1 AND provider_event_id = $2`

	countEvents = `SELECT count(*) FROM events`

	countSourceEvents = `SELECT count(*) FROM events WHERE source = $1`

	selectEventDeliveries = `SELECT
	id, event_id, destination, status, attempts, replay_count, ordering_key,
	next_attempt_at, lease_until, last_error, last_status_code,
	created_at, updated_at, finished_at
FROM deliveries WHERE event_id = $1 ORDER BY destination`

	// insertRejections appends the rows of parallel arrays in order, so
	// that ids follow the order of the batch.
	insertRejections = `INSERT INTO rejections (at, source, reason, remote_addr, body_size, skew_ms)
SELECT at, source, reason, remote_addr, body_size, skew_ms
FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[])
	WITH ORDINALITY AS r(at, source, reason, remote_addr, body_size, skew_ms, n)
ORDER BY r.n`

	selectRejections = `SELECT id, at, source, reason, remote_addr, body_size, skew_ms
FROM rejections ORDER BY id DESC LIMIT $1`

	// trimRejections deletes every row older than the newest $1 rows.
	trimRejections = `DELETE FROM rejections WHERE id <= (
	SELECT id FROM rejections ORDER BY id DESC OFFSET $1 LIMIT 1
)`
)
