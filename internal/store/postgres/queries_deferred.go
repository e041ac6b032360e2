package postgres

// The statements of deferred deliveries (store.Lease.Deferred): ingest
// reserves their ids and writes their leases in one row of
// delivery_leases per batch (ingestDeferred), their outcomes write their
// rows (completeDeliveries), and the rows of those whose batch's lease
// ran out are written by the next claim's sweep.
var (
	// sweepLeases deletes up to $2 rows of delivery_leases whose earliest
	// lease ran out by $1 — rows no other claim is sweeping — and writes,
	// at time $3, their deliveries' rows still missing (deferredRows), so
	// that claims take them over as any claimed row whose lease ran out;
	// the destinations of the rows written are woken when it commits.
	sweepLeases = `WITH gone AS (
	DELETE FROM hookrelay.delivery_leases WHERE id IN (
		SELECT id FROM hookrelay.delivery_leases WHERE lease_until <= $1
		ORDER BY lease_until LIMIT $2 FOR UPDATE SKIP LOCKED
	)
	RETURNING delivery_ids, event_ids, destinations, tokens, lease_untils
), x AS (
	SELECT u.* FROM gone, unnest(gone.delivery_ids, gone.event_ids, gone.destinations, gone.tokens, gone.lease_untils)
		AS u(id, event_id, destination, lease_token, lease_until)
), w AS (` + deferredRows("$3") + `
	RETURNING destination
)
SELECT pg_notify('` + notifyChannel + `', destination) FROM (SELECT DISTINCT destination FROM w) AS woken`

	// writeDeferred writes, at time $1, the rows of the deferred
	// deliveries $2 (their events $3, destinations $4, lease tokens $5 and
	// lease ends $6) that are still missing (deferredRows).
	writeDeferred = `WITH x AS (
	SELECT * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
		AS x(id, event_id, destination, lease_token, lease_until)
) ` + deferredRows("$1")
)

// deferredRows inserts the deferred deliveries of x (id, event_id,
// destination, lease_token, lease_until) whose rows are missing, as
// ingest writes a leased delivery: processing, its attempt counted, the
// token and the lease; updated at the time now names. One whose row was
// written meanwhile (its outcome, a replay) or whose event is gone or
// purged (nothing is left to deliver) is skipped.
func deferredRows(now string) string {
	return `INSERT INTO hookrelay.deliveries (
	id, event_id, destination, status, attempts, ordering_key, next_attempt_at, order_at,
	lease_until, lease_token, created_at, updated_at
)
OVERRIDING SYSTEM VALUE
SELECT x.id, x.event_id, x.destination, 'processing', 1, '', e.received_at, coalesce(e.occurred_at, e.received_at),
	x.lease_until, x.lease_token, e.received_at, ` + now + `::timestamptz
FROM x JOIN hookrelay.events e ON e.id = x.event_id AND e.purged_at IS NULL
ORDER BY x.id
ON CONFLICT DO NOTHING`
}

// deferredLeases lists the deliveries of delivery_leases, written or
// not (sqlstore.Dialect.DeferredLeases), from the batches' arrays.
const deferredLeases = `SELECT u.id, u.event_id, u.destination COLLATE "C" AS destination, u.lease_until
FROM hookrelay.delivery_leases dl
CROSS JOIN LATERAL unnest(dl.delivery_ids, dl.event_ids, dl.destinations, dl.lease_untils)
	AS u(id, event_id, destination, lease_until)`
