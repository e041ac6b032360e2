package sqlite

// The SQL of pause, skip and the audit log.

const (
	listPaused = `SELECT destination, paused_at FROM paused_destinations`

	insertPaused = `INSERT INTO paused_destinations (destination, paused_at, actor) VALUES (?, ?, ?)
ON CONFLICT (destination) DO NOTHING`

	deletePaused = `DELETE FROM paused_destinations WHERE destination = ?`

	// insertAction writes the audit row of a pause, resume or skip.
	insertAction = `INSERT INTO replays (at, actor, filter, matched, rearmed, in_flight, dry_run, kind)
VALUES (?, ?, ?, 0, 0, 0, 0, ?)`

	// skipDelivery makes a live delivery skipped and final, its lease
	// cleared so that a late holder's outcome is refused.
	skipDelivery = `UPDATE deliveries SET
	status = 'skipped', lease_until = NULL, lease_token = NULL,
	finished_at = ?1, updated_at = ?1, last_error = ?2
WHERE id = ?3 AND status IN ('pending', 'failed', 'processing')
RETURNING id, event_id, destination, status, attempts, replay_count, ordering_key,
	next_attempt_at, lease_until, last_error, last_status_code,
	created_at, updated_at, finished_at`

	deliveryExists = `SELECT count(*) FROM deliveries WHERE id = ?`

	selectAudit = `SELECT id, at, actor, kind, filter, matched, rearmed, in_flight, created, purged, dry_run
FROM replays WHERE at >= ? ORDER BY id DESC LIMIT ?`
)
