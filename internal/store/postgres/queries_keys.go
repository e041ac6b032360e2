package postgres

// The SQL of re-sealing payloads under the current key (store.PayloadKeys).

const (
	countEventKeys   = `SELECT key_id, count(*) FROM events GROUP BY key_id`
	countAttemptKeys = `SELECT key_id, count(*) FROM attempts GROUP BY key_id`

	// selectEventsToReseal is a batch of events after $1, plain or under
	// a key other than $2, in id order along the primary key, locked
	// until the transaction ends. NO KEY UPDATE lets deliveries that
	// reference them be created meanwhile.
	selectEventsToReseal = `SELECT id, body, headers, raw_query, key_id FROM events
WHERE id > $1 AND key_id IS DISTINCT FROM $2 ORDER BY id LIMIT $3
FOR NO KEY UPDATE`

	updateEventSeals = `UPDATE events e SET body = u.body, headers = u.headers, raw_query = u.raw_query, key_id = $4
FROM unnest($1::text[], $2::bytea[], $3::text[], $5::text[]) AS u(id, body, headers, raw_query)
WHERE e.id = u.id`

	selectAttemptsToReseal = `SELECT id, delivery_id, response_snippet, key_id FROM attempts
WHERE id > $1 AND key_id IS DISTINCT FROM $2 ORDER BY id LIMIT $3
FOR NO KEY UPDATE`

	updateAttemptSeals = `UPDATE attempts a SET response_snippet = u.snippet, key_id = $3
FROM unnest($1::bigint[], $2::bytea[]) AS u(id, snippet)
WHERE a.id = u.id`
)
