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

	// replayPage selects a batch of a replay's deliveries: those after
	// the key (?, ?) in (event_id, destination) order that meet the
	// conditions spliced in (%[1]s), up to the limit (%[2]s), never a
	// purged one (its event has nothing left to deliver). CROSS JOIN
	// makes SQLite read the deliveries first, from their unique index
	// where the key left off, so that a batch costs the same wherever it
	// is in the walk (joined the other way round, each batch would sort
	// the whole selection).
	replayPage = `SELECT d.id, d.event_id, d.destination, d.status
FROM deliveries d CROSS JOIN events e ON e.id = d.event_id
WHERE (d.event_id, d.destination) > (?, ?)
	AND d.status <> 'purged'
	AND %[1]s
ORDER BY d.event_id, d.destination
LIMIT %[2]s`

	// replayBusy counts the deliveries of the JSON array ?1 that are
	// processing; a condition on their status may follow (%s).
	replayBusy = `SELECT count(*) FROM deliveries d
WHERE d.id IN (SELECT value FROM json_each(?1)) AND d.status = 'processing' %s`

	// replayRearm re-arms at ?2 the deliveries of the JSON array ?1 that
	// are not processing, nor purged since the batch was read; a
	// condition on their status may follow (%s).
	replayRearm = `UPDATE deliveries AS d SET
	status = 'pending', attempts = 0, next_attempt_at = ?2,
	lease_until = NULL, lease_token = NULL, finished_at = NULL,
	last_error = '', last_status_code = 0,
	replay_count = replay_count + 1, updated_at = ?2
WHERE d.id IN (SELECT value FROM json_each(?1)) AND d.status NOT IN ('processing', 'purged') %s`

	insertReplay = `INSERT INTO replays (at, actor, filter, matched, rearmed, in_flight, dry_run, kind)
VALUES (?, ?, ?, ?, ?, ?, ?, 'replay')`

	// backfillCandidates returns up to ?8 events of the sources of the
	// JSON array ?1, with ids after ?2 in [?3, ?4) (the window's id
	// range) and received in [?5, ?6), oldest first, that have no
	// delivery to destination ?7 and were not purged: listColumns, no
	// body.
	backfillCandidates = `SELECT ` + listColumns + `
FROM events e
WHERE e.source IN (SELECT value FROM json_each(?1)) AND e.id > ?2 AND e.id >= ?3 AND e.id < ?4
	AND e.received_at >= ?5 AND e.received_at < ?6
	AND e.purged_at IS NULL
	AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.destination = ?7)
ORDER BY e.id
LIMIT ?8`

	// selectBodies returns the id and body of the events of the JSON
	// array ?.
	selectBodies = `SELECT id, body, key_id FROM events WHERE id IN (SELECT value FROM json_each(?))`

	// createDeliveries inserts pending deliveries, due at ?2, for the
	// JSON array ?1 of [event, destination, ordering key] triples whose
	// event exists and was not purged, each ordered by its event's
	// occurred_at (received_at when it has none). An existing (event,
	// destination) is skipped.
	createDeliveries = `INSERT INTO deliveries (
	event_id, destination, status, ordering_key, next_attempt_at, order_at, created_at, updated_at
)
SELECT e.id, x.value ->> 1, 'pending', x.value ->> 2, ?2, coalesce(e.occurred_at, e.received_at), ?2, ?2
FROM json_each(?1) AS x JOIN events e ON e.id = x.value ->> 0
WHERE e.purged_at IS NULL
ON CONFLICT (event_id, destination) DO NOTHING`

	recordBackfill = `INSERT INTO replays (at, actor, filter, matched, rearmed, in_flight, dry_run, kind, created)
VALUES (?, ?, ?, 0, 0, 0, ?, 'backfill', ?)`

	// pruneEvents deletes, oldest first, up to ?5 events received before
	// ?2 (the later of the two retention bounds; ?1 is its id bound)
	// that have no live delivery and were received before ?3 when one
	// delivery is dead, else before ?4 (a NULL bound prunes nothing);
	// their deliveries and attempts go by cascade. The writer runs it
	// alone, so nothing changes between the check and the delete.
	pruneEvents = `DELETE FROM events WHERE id IN (
	SELECT e.id FROM events e
	WHERE e.id < ?1 AND e.received_at < ?2
		AND NOT EXISTS (
			SELECT 1 FROM deliveries d
			WHERE d.event_id = e.id AND d.status IN ('pending', 'processing', 'failed')
		)
		AND CASE WHEN EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'dead')
			THEN e.received_at < ?3 ELSE e.received_at < ?4 END
	ORDER BY e.id
	LIMIT ?5
)`
)
