package sqlstore

import (
	"context"
	"fmt"
)

// Re-sealing reads a batch of rows that are not under the current key and
// rewrites them in the same write transaction, the rows locked meanwhile
// (FOR NO KEY UPDATE where the database locks rows: Dialect.RowLocks) so that nothing changes them between read and write.
// The batch is written by one UPDATE joined to the list of its new columns
// (Dialect.Rows); more than one when a VALUES list would take more
// arguments than a statement allows.

const (
	// selectEventsToReseal is a batch of events after ?1, plain or under
	// a key other than ?2, in id order along the primary key.
	selectEventsToReseal = `SELECT id, body, headers, raw_query, key_id FROM hookrelay.events
WHERE id > ?1 AND key_id IS DISTINCT FROM ?2 ORDER BY id LIMIT ?3
`

	// updateEventSeals sets the key id ? and, from each row of the list
	// %s (id, body, headers, raw_query), an event's sealed columns.
	updateEventSeals = `UPDATE hookrelay.events SET body = u.column2, headers = u.column3, raw_query = u.column4, key_id = ?
FROM %s WHERE hookrelay.events.id = u.column1`

	selectAttemptsToReseal = `SELECT id, delivery_id, response_snippet, headers, key_id FROM hookrelay.attempts
WHERE id > ?1 AND key_id IS DISTINCT FROM ?2 ORDER BY id LIMIT ?3
`

	// updateAttemptSeals sets the key id ? and, from each row of the list
	// %s (id, response_snippet, headers), an attempt's sealed snippet and
	// headers.
	updateAttemptSeals = `UPDATE hookrelay.attempts SET response_snippet = u.column2, headers = u.column3, key_id = ?
FROM %s WHERE hookrelay.attempts.id = u.column1`
)

// The types of the columns of the lists of updateEventSeals and
// updateAttemptSeals.
var (
	eventSealTypes   = []string{"text", "bytea", "text", "text"}
	attemptSealTypes = []string{"bigint", "bytea", "bytea"}
)

// ResealEvents re-seals under the current key at most limit events after
// after that are plain or under another key.
func (o *Ops) ResealEvents(ctx context.Context, after string, limit int) (int, string, error) {
	n, last, err := resealBatch(ctx, o, after, limit, selectEventsToReseal, updateEventSeals, eventSealTypes, func(row Rows) (string, []any, error) {
		var (
			id, headers, query string
			body               []byte
			keyID              *string
		)
		if err := row.Scan(&id, &body, &headers, &query, &keyID); err != nil {
			return "", nil, err
		}
		sealed, err := o.b.Payloads.ResealEvent(id, body, headers, query, keyID)
		return id, []any{id, sealed.Body, sealed.Headers, sealed.Query}, err
	})
	if err != nil {
		return 0, after, o.fail(ctx, fmt.Sprintf("reseal events after %q", after), err)
	}
	return n, last, nil
}

// ResealAttempts is ResealEvents for attempts' response snippets and
// headers.
func (o *Ops) ResealAttempts(ctx context.Context, after int64, limit int) (int, int64, error) {
	n, last, err := resealBatch(ctx, o, after, limit, selectAttemptsToReseal, updateAttemptSeals, attemptSealTypes, func(row Rows) (int64, []any, error) {
		var (
			id, deliveryID   int64
			snippet, headers []byte
			keyID            *string
		)
		if err := row.Scan(&id, &deliveryID, &snippet, &headers, &keyID); err != nil {
			return 0, nil, err
		}
		snippet, headers, err := o.b.Payloads.ResealAttempt(deliveryID, snippet, headers, keyID)
		return id, []any{id, snippet, headers}, err
	})
	if err != nil {
		return 0, after, o.fail(ctx, fmt.Sprintf("reseal attempts after %d", after), err)
	}
	return n, last, nil
}

// resealBatch runs, in one write transaction, query for a batch of at
// most limit rows after after that are not under the current key; reseal
// scans each row and returns its id and its row of the list of update,
// whose columns are of types, which writes them all. It returns how many
// rows it wrote and the last one's id. Its errors are not mapped.
func resealBatch[C any](ctx context.Context, o *Ops, after C, limit int, query, update string, types []string, reseal func(Rows) (C, []any, error)) (int, C, error) {
	release, err := o.enter()
	if err != nil {
		return 0, after, err
	}
	defer release()
	current, err := o.b.Payloads.Current()
	if err != nil {
		return 0, after, err
	}
	var (
		last = after
		n    int
	)
	err = o.b.InTx(ctx, func(tx Conn) error {
		rows, err := tx.Query(ctx, query+" "+o.b.Dialect.locking("FOR NO KEY UPDATE"), after, current, limit)
		writes, err := collect(rows, err, func(r Rows) ([]any, error) {
			id, args, err := reseal(r)
			last = id
			return args, err
		})
		n = len(writes)
		per := (maxArgs - 1) / len(types) // a VALUES list's rows, after the key id
		for err == nil && len(writes) > 0 {
			batch := writes[:min(len(writes), per)]
			from, args := o.b.Dialect.Rows(types, batch)
			_, err = tx.Exec(ctx, fmt.Sprintf(update, from), append([]any{current}, args...)...)
			writes = writes[len(batch):]
		}
		return err
	})
	if err != nil {
		return 0, after, err
	}
	return n, last, nil
}
