package postgres

// The SQL of the operator side (store.Operations), next to migrations/.
// Listing and replay build their WHERE clause from the filter (see
// sqlstore.Where and dialect); their fixed parts are here.

const (
	// rearmBatch is the Dialect's RearmBatch: it re-arms (%[2]s) the
	// deliveries of the batch (%[1]s) that may be re-armed (%[3]s) when
	// the UPDATE reaches them (the condition is checked again on a row a
	// concurrent claim or purge changed meanwhile), and counts those
	// processing in the statement's snapshot, so that a delivery is
	// counted once, re-armed or in flight. The attempt that ended a done
	// delivery, which its row keeps (migration 0028) and re-arming
	// clears, is written to attempts first, read in the same snapshot.
	// (Two replays re-arming one done delivery at the same moment would
	// each write it; the second also re-arms it a second time.)
	rearmBatch = `WITH sel AS MATERIALIZED (
%[1]s
), last AS (
	SELECT event_id, destination FROM sel ORDER BY event_id DESC, destination DESC LIMIT 1
), kept AS (
	INSERT INTO hookrelay.attempts (delivery_id, event_id, attempted_at, duration_ms, status_code, round)
	SELECT d.id, d.event_id, d.last_attempted_at, d.last_duration_ms, d.last_status_code, d.replay_count
	FROM hookrelay.deliveries d JOIN sel ON d.id = sel.id
	WHERE d.status = 'done' AND d.last_attempted_at IS NOT NULL AND %[3]s
), upd AS (
	UPDATE hookrelay.deliveries d SET %[2]s
	FROM sel
	WHERE d.id = sel.id AND %[3]s
	RETURNING d.destination
)
SELECT (SELECT count(*) FROM sel), (SELECT count(*) FROM sel WHERE status = 'processing'),
	(SELECT count(*) FROM upd), coalesce((SELECT event_id FROM last), ''), coalesce((SELECT destination FROM last), ''),
	(SELECT coalesce(array_agg(DISTINCT destination), '{}') FROM upd)`

	// backfillIDs is the Dialect's BackfillIDs: the sources are a text
	// array. Each source is read in id order from the (source, id) index,
	// up to the limit, and the results merged, so that a page costs the
	// same wherever it is in the window. OFFSET 0 keeps NOT EXISTS a
	// probe of the (event_id, destination) index per event: as an
	// anti-join, the planner read the whole index for a destination that
	// has no rows yet (20 times slower per page).
	backfillIDs = `SELECT x.id FROM unnest(?1::text[]) AS s(source)
CROSS JOIN LATERAL (
	SELECT e.id FROM hookrelay.events e
	WHERE e.source = s.source AND e.id > ?2 AND e.id >= ?3 AND e.id < ?4
		AND e.received_at >= ?7 AND e.received_at < ?8
		AND e.purged_at IS NULL
		AND NOT EXISTS (SELECT 1 FROM hookrelay.deliveries d WHERE d.event_id = e.id AND d.destination = ?5 OFFSET 0)
	ORDER BY e.id
	LIMIT ?6
) AS x
ORDER BY x.id
LIMIT ?6`

	// resetIdentity is the Dialect's ResetIdentity: it sets the sequence
	// of a table's identity column past its largest id.
	resetIdentity = `SELECT setval(pg_get_serial_sequence('%[1]s', 'id'), coalesce(max(id), 0) + 1, false) FROM %[1]s`

	// tryFoldLock takes the advisory lock of a fold for the transaction,
	// or tells that another holds it.
	tryFoldLock = `SELECT pg_try_advisory_xact_lock($1)`

	// foldCounts replaces the count deltas by their sums, one row per
	// (destination, status), dropping zeros. The INSERT does not see the
	// rows the DELETE returns as deleted, nor the DELETE the rows the
	// INSERT adds (one snapshot); rows appended by transactions that
	// commit meanwhile are not in the snapshot and stay as they are.
	foldCounts = `WITH gone AS (
	DELETE FROM hookrelay.delivery_count_deltas RETURNING destination, status, n
)
INSERT INTO hookrelay.delivery_count_deltas (destination, status, n)
SELECT destination, status, sum(n) FROM gone
GROUP BY destination, status HAVING sum(n) <> 0`

	// foldFailureCounts does for the failure counts of migration 0024
	// what foldCounts does for the delivery counts, by (destination,
	// status, kind).
	foldFailureCounts = `WITH gone AS (
	DELETE FROM hookrelay.failure_count_deltas RETURNING destination, status, kind, n
)
INSERT INTO hookrelay.failure_count_deltas (destination, status, kind, n)
SELECT destination, status, kind, sum(n) FROM gone
GROUP BY destination, status, kind HAVING sum(n) <> 0`

	// foldActivity adds the activity deltas to their minutes' rows and
	// deletes them, in one statement: one snapshot, so a delta is moved
	// whole or not at all; deltas appended by transactions that commit
	// meanwhile stay for the next fold.
	foldActivity = `WITH gone AS (
	DELETE FROM hookrelay.activity_deltas RETURNING minute, received, delivered, failed
)
INSERT INTO hookrelay.activity_minutes AS a (minute, received, delivered, failed)
SELECT minute, sum(received), sum(delivered), sum(failed) FROM gone
GROUP BY minute
ORDER BY minute
ON CONFLICT (minute) DO UPDATE SET
	received = a.received + excluded.received,
	delivered = a.delivered + excluded.delivered,
	failed = a.failed + excluded.failed`
)
