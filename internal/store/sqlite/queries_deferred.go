package sqlite

// The statements of deferred deliveries (store.Lease.Deferred; see the
// PostgreSQL driver's of the same name): ingest reserves their ids from
// the deliveries' AUTOINCREMENT sequence and writes their leases in one
// row of delivery_leases per batch, their outcomes insert their rows
// (insertDeferredOutcomes), and the rows of those whose batch's lease ran
// out are written by the next claim's sweep.
const (
	// seedDeliveryIDs gives the deliveries' AUTOINCREMENT sequence its
	// row, which SQLite writes at the table's first insert, so that
	// reserveDeliveryIDs finds it.
	seedDeliveryIDs = `INSERT INTO sqlite_sequence (name, seq)
SELECT 'hookrelay.deliveries', coalesce((SELECT max(id) FROM hookrelay.deliveries), 0)
WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'hookrelay.deliveries')`

	// reserveDeliveryIDs moves the deliveries' sequence ?1 ids on and
	// returns where it ends: the ids reserved end there. Every insert
	// without an id then takes one past them, as AUTOINCREMENT never
	// goes below the sequence.
	reserveDeliveryIDs = `UPDATE sqlite_sequence SET seq = seq + ?1 WHERE name = 'hookrelay.deliveries' RETURNING seq`

	// insertDeliveryLease writes one batch's leases: its first delivery
	// id, the earliest lease end, the earliest event's receive time, and
	// the JSON array of [id, event id, destination, token, lease end].
	insertDeliveryLease = `INSERT INTO hookrelay.delivery_leases (id, lease_until, received_at, deliveries) VALUES (?1, ?2, ?3, ?4)`

	// selectEndedLeases returns up to ?2 batches whose earliest lease ran
	// out by ?1.
	selectEndedLeases = `SELECT id, deliveries FROM hookrelay.delivery_leases WHERE lease_until <= ?1 ORDER BY lease_until LIMIT ?2`

	// deleteDeliveryLeases deletes the batches of the JSON array ?1 of ids.
	deleteDeliveryLeases = `DELETE FROM hookrelay.delivery_leases WHERE id IN (SELECT value FROM json_each(?1))`

	// writeDeferred writes, updated at ?2, the rows still missing of the
	// deferred deliveries of the JSON array ?1 of [id, event id,
	// destination, token, lease end], as ingest writes a leased delivery:
	// processing, its attempt counted, the token and the lease. One whose
	// row was written meanwhile, or whose event is gone or purged, is
	// skipped.
	writeDeferred = `INSERT INTO hookrelay.deliveries (
	id, event_id, destination, status, attempts, ordering_key, next_attempt_at, order_at,
	lease_until, lease_token, created_at, updated_at
)
SELECT x.value ->> 0, x.value ->> 1, x.value ->> 2, 'processing', 1, '', e.received_at,
	coalesce(e.occurred_at, e.received_at), x.value ->> 4, x.value ->> 3, e.received_at, ?2
FROM json_each(?1) AS x JOIN hookrelay.events e ON e.id = x.value ->> 1 AND e.purged_at IS NULL
WHERE true
ON CONFLICT DO NOTHING`

	// insertDeferredOutcomes* insert deferred deliveries whole with their
	// outcomes, as ingest would have written them and completeDeliveries
	// would have left them: each row is its id, event, destination,
	// status, next attempt (NULL: its event's receive time), error, status
	// code, failure kind, finished, attempted at, duration and now. One
	// whose row was written meanwhile, or whose event is gone or purged,
	// is not.
	insertDeferredOutcomesHead = `INSERT INTO hookrelay.deliveries (
	id, event_id, destination, status, attempts, ordering_key, next_attempt_at, order_at,
	last_error, last_status_code, failure_kind, finished_at, last_attempted_at, last_duration_ms,
	created_at, updated_at
)
SELECT v.column1, v.column2, v.column3, v.column4, 1, '', coalesce(v.column5, e.received_at),
	coalesce(e.occurred_at, e.received_at), v.column6, v.column7, v.column8, v.column9, v.column10, v.column11,
	e.received_at, v.column12
FROM (VALUES `
	insertDeferredOutcomesRow  = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	insertDeferredOutcomesTail = `) AS v JOIN hookrelay.events e ON e.id = v.column2 AND e.purged_at IS NULL
WHERE true
ON CONFLICT DO NOTHING
RETURNING id`

	// deferredLeases lists the deliveries of delivery_leases, written or
	// not (sqlstore.Dialect.DeferredLeases), from the batches' JSON
	// arrays of [id, event id, destination, token, lease end].
	deferredLeases = `SELECT j.value ->> 0 AS id, j.value ->> 1 AS event_id, j.value ->> 2 AS destination,
	j.value ->> 4 AS lease_until
FROM hookrelay.delivery_leases dl, json_each(dl.deliveries) j`
)
