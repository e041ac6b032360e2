package sqlite

// The SQL of re-sealing payloads under the current key (store.PayloadKeys).

const (
	countEventKeys   = `SELECT key_id, count(*) FROM events GROUP BY key_id`
	countAttemptKeys = `SELECT key_id, count(*) FROM attempts GROUP BY key_id`

	// selectEventsToReseal is a batch of events after ?1, plain or under
	// a key other than ?2, in id order along the primary key.
	selectEventsToReseal = `SELECT id, body, headers, raw_query, key_id FROM events
WHERE id > ?1 AND key_id IS NOT ?2 ORDER BY id LIMIT ?3`

	updateEventSeal = `UPDATE events SET body = ?, headers = ?, raw_query = ?, key_id = ? WHERE id = ?`

	selectAttemptsToReseal = `SELECT id, delivery_id, response_snippet, key_id FROM attempts
WHERE id > ?1 AND key_id IS NOT ?2 ORDER BY id LIMIT ?3`

	updateAttemptSeal = `UPDATE attempts SET response_snippet = ?, key_id = ? WHERE id = ?`
)
