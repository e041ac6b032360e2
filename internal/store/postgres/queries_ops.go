package postgres

// The SQL of the operator side (store.Operations), next to migrations/.
// Listing and replay build their WHERE clause from the filter (see
// sqlstore.Where and dialect); their fixed parts are here.

const (
	// listColumns are an event's columns but its body and headers, and
	// the body's size, read without detoasting the body; a sealed body is
	// payloadcrypt.Overhead (28) bytes longer than the body.
	listColumns = `e.id, e.source, e.provider_event_id, e.id_origin, e.type, e.content_type,
	e.signature_slot, e.occurred_at, e.received_at,
	octet_length(e.body) - CASE WHEN e.key_id IS NULL THEN 0 ELSE 28 END`

	// replaySelection selects a batch of a replay's deliveries: those
	// after the key ($1, $2) in (event_id, destination) order, read from
	// their unique index where the last batch left off, that meet the
	// conditions spliced in (%[1]s), up to the limit (%[2]s), never a
	// purged one (its event has nothing left to deliver). e.id >= $1,
	// implied by the key, starts the events where the deliveries start:
	// without it the planner read the events from the start of the
	// window in every batch, so that the batches of a walk over a million
	// deliveries read some fifty million events between them.
	// replayBatchDry and replayBatchRearm start with it.
	replaySelection = `WITH sel AS MATERIALIZED (
	SELECT d.id, d.event_id, d.destination, d.status
	FROM deliveries d JOIN events e ON e.id = d.event_id
	WHERE (d.event_id, d.destination) > ($1, $2) AND e.id >= $1
		AND d.status <> 'purged'
		AND %[1]s
	ORDER BY d.event_id, d.destination
	LIMIT %[2]s
), last AS (
	SELECT event_id, destination FROM sel ORDER BY event_id DESC, destination DESC LIMIT 1
)`

	// replayBatchDry counts a batch of a replay, and those of it
	// processing, and returns its last key.
	replayBatchDry = replaySelection + `
SELECT (SELECT count(*) FROM sel), (SELECT count(*) FROM sel WHERE status = 'processing'),
	0::bigint, coalesce((SELECT event_id FROM last), ''), coalesce((SELECT destination FROM last), ''),
	'{}'::text[]`

	// replayBatchRearm re-arms at %[3]s the deliveries of a batch of a
	// replay not processing, nor purged, when the UPDATE reaches them
	// (the condition is checked again on a row a concurrent claim or
	// purge changed meanwhile),
	// with a condition on their status when the filter has one (%[4]s),
	// and returns as replayBatchDry does, with the count re-armed and
	// the destinations re-armed.
	replayBatchRearm = replaySelection + `, upd AS (
	UPDATE deliveries d SET
		status = 'pending', attempts = 0, next_attempt_at = %[3]s,
		lease_until = NULL, lease_token = NULL, finished_at = NULL,
		last_error = '', last_status_code = 0,
		replay_count = d.replay_count + 1, updated_at = %[3]s
	FROM sel
	WHERE d.id = sel.id AND d.status NOT IN ('processing', 'purged') %[4]s
	RETURNING d.destination
)
SELECT (SELECT count(*) FROM sel), (SELECT count(*) FROM sel WHERE status = 'processing'),
	(SELECT count(*) FROM upd), coalesce((SELECT event_id FROM last), ''), coalesce((SELECT destination FROM last), ''),
	(SELECT coalesce(array_agg(DISTINCT destination), '{}') FROM upd)`

	insertReplay = `INSERT INTO replays (at, actor, filter, matched, rearmed, in_flight, dry_run, kind)
VALUES ($1, $2, $3, $4, $5, $6, $7, 'replay')`

	// backfillCandidates returns up to $6 events of the sources $1, with
	// ids after $2 in [$3, $4) (the window's id range) and received in
	// [$7, $8), oldest first, that have no delivery to destination $5
	// and were not purged.
	// Each source is read in id order from the (source, id) index, up to
	// the limit, and the results merged, so that a page costs the same
	// wherever it is in the window. It reads listColumns: no body.
	// OFFSET 0 keeps NOT EXISTS a probe of the (event_id, destination)
	// index per event: as an anti-join, the planner read the whole index
	// for a destination that has no rows yet (20 times slower per page).
	backfillCandidates = `WITH c AS (
	SELECT x.id FROM unnest($1::text[]) AS s(source)
	CROSS JOIN LATERAL (
		SELECT e.id FROM events e
		WHERE e.source = s.source AND e.id > $2 AND e.id >= $3 AND e.id < $4
			AND e.received_at >= $7 AND e.received_at < $8
			AND e.purged_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.destination = $5 OFFSET 0)
		ORDER BY e.id
		LIMIT $6
	) AS x
	ORDER BY x.id
	LIMIT $6
)
SELECT ` + listColumns + `
FROM c JOIN events e ON e.id = c.id
ORDER BY e.id`

	// selectBodies returns the id and body of the events $1.
	selectBodies = `SELECT id, body, key_id FROM events WHERE id = ANY($1::text[])`

	// createDeliveries inserts pending deliveries, due at $4, for the
	// (event $1, destination $2, ordering key $3) triples whose event
	// exists, in (event, destination) order so that concurrent backfills
	// take their index locks in one order, each ordered by its event's
	// occurred_at (received_at when it has none). An existing (event,
	// destination) is skipped, and so is an event that was purged. The
	// events are locked FOR SHARE as they are read: an event a
	// concurrent prune is deleting is waited for and then skipped, so no
	// delivery outlives its event (no foreign key checks that since
	// migration 0016), and one a concurrent purge is erasing (its UPDATE
	// conflicts with SHARE) is waited for and then skipped, its
	// purged_at checked again on the row the purge committed; a purge
	// that comes after waits for the insert and then ends the deliveries
	// it made. A prune that comes after skips the locked events.
	createDeliveries = `INSERT INTO deliveries (
	event_id, destination, status, ordering_key, next_attempt_at, order_at, created_at, updated_at
)
SELECT e.id, x.destination, 'pending', x.ordering_key, $4, coalesce(e.occurred_at, e.received_at), $4, $4
FROM unnest($1::text[], $2::text[], $3::text[]) AS x(event_id, destination, ordering_key)
JOIN events e ON e.id = x.event_id
WHERE e.purged_at IS NULL
ORDER BY x.event_id, x.destination
FOR SHARE OF e
ON CONFLICT (event_id, destination) DO NOTHING`

	recordBackfill = `INSERT INTO replays (at, actor, filter, matched, rearmed, in_flight, dry_run, kind, created)
VALUES ($1, $2, $3, 0, 0, 0, $4, 'backfill', $5)`

	// tryFoldLock takes the advisory lock of a fold for the transaction,
	// or tells that another holds it.
	tryFoldLock = `SELECT pg_try_advisory_xact_lock($1)`

	// foldCounts replaces the count deltas by their sums, one row per
	// (destination, status), dropping zeros. The INSERT does not see the
	// rows the DELETE returns as deleted, nor the DELETE the rows the
	// INSERT adds (one snapshot); rows appended by transactions that
	// commit meanwhile are not in the snapshot and stay as they are.
	foldCounts = `WITH gone AS (
	DELETE FROM delivery_count_deltas RETURNING destination, status, n
)
INSERT INTO delivery_count_deltas (destination, status, n)
SELECT destination, status, sum(n) FROM gone
GROUP BY destination, status HAVING sum(n) <> 0`

	// pruneCandidates locks and returns, oldest first, up to $5 events
	// received before $2 (the later of the two retention bounds; $1 is
	// its id bound) that look prunable in this statement's snapshot: no
	// live delivery, and received before $3 when one delivery is dead,
	// else before $4 (a NULL bound prunes nothing). Events another
	// transaction holds a lock on (a backfill adding deliveries holds
	// one) are skipped. Each event's deliveries are read by a lateral
	// aggregate, one probe of the (event_id, destination) index per
	// event, which the planner cannot turn into a scan of every live
	// delivery.
	pruneCandidates = `SELECT e.id, e.received_at FROM events e
CROSS JOIN LATERAL (
	SELECT count(*) FILTER (WHERE d.status IN ('pending', 'processing', 'failed')) AS live,
		count(*) FILTER (WHERE d.status = 'dead') AS dead
	FROM deliveries d WHERE d.event_id = e.id
) AS x
WHERE e.id < $1 AND e.received_at < $2 AND x.live = 0
	AND CASE WHEN x.dead > 0 THEN e.received_at < $3 ELSE e.received_at < $4 END
ORDER BY e.id
LIMIT $5
FOR UPDATE OF e SKIP LOCKED`

	// pruneCheck locks the deliveries of the events $1, which the
	// transaction holds locked so that none can be added, and returns
	// for each event with deliveries how many it has, how many were
	// locked (a row another transaction holds, such as a replay re-arming
	// it, is skipped), and how many of those are live and how many dead.
	// A locked row is read in its latest committed version, so a status
	// changed since pruneCandidates's snapshot is seen.
	pruneCheck = `WITH held AS MATERIALIZED (
	SELECT d.event_id, d.status FROM deliveries d
	WHERE d.event_id = ANY($1::text[])
	FOR UPDATE SKIP LOCKED
), h AS (
	SELECT event_id, count(*) AS n,
		count(*) FILTER (WHERE status IN ('pending', 'processing', 'failed')) AS live,
		count(*) FILTER (WHERE status = 'dead') AS dead
	FROM held GROUP BY event_id
), t AS (
	SELECT event_id, count(*) AS n FROM deliveries
	WHERE event_id = ANY($1::text[]) GROUP BY event_id
)
SELECT t.event_id, t.n, coalesce(h.n, 0), coalesce(h.live, 0), coalesce(h.dead, 0)
FROM t LEFT JOIN h ON h.event_id = t.event_id`

	// pruneEvents deletes the events $1, and with them, by the delete
	// triggers of migration 0016, their deliveries and attempts.
	pruneEvents = `DELETE FROM events WHERE id = ANY($1::text[])`
)
