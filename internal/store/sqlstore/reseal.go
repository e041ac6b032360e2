package sqlstore

import (
	"context"
	"fmt"
	"strings"
)

// Re-sealing reads a batch of rows that are not under the current key and
// rewrites them in the same write transaction, the rows locked meanwhile
// (Dialect.LockRows) so that nothing changes them between read and write.
// The batch is written by one UPDATE joined to a VALUES list of the new
// columns (more than one when the batch is larger than one statement's
// arguments allow); its byte columns are cast to Dialect.Blob, for
// PostgreSQL reads an untyped VALUES column as text.

const (
	// selectEventsToReseal is a batch of events after ?1, plain or under
	// a key other than ?2, in id order along the primary key.
	selectEventsToReseal = `SELECT id, body, headers, raw_query, key_id FROM events
WHERE id > ?1 AND key_id IS DISTINCT FROM ?2 ORDER BY id LIMIT ?3
`

	// updateEventSeals sets the key id ? and, for each row of its VALUES
	// (id, body, headers, raw_query), the event's sealed columns.
	updateEventSeals = `UPDATE events SET body = u.column2, headers = u.column3, raw_query = u.column4, key_id = ?
FROM (VALUES %s) AS u WHERE events.id = u.column1`
	eventSealsRow = `(?, CAST(? AS %[1]s), ?, ?)`

	selectAttemptsToReseal = `SELECT id, delivery_id, response_snippet, key_id FROM attempts
WHERE id > ?1 AND key_id IS DISTINCT FROM ?2 ORDER BY id LIMIT ?3
`

	// updateAttemptSeals sets the key id ? and, for each row of its VALUES
	// (id, response_snippet), the attempt's sealed snippet.
	updateAttemptSeals = `UPDATE attempts SET response_snippet = u.column2, key_id = ?
FROM (VALUES %s) AS u WHERE attempts.id = u.column1`
	attemptSealsRow = `(CAST(? AS BIGINT), CAST(? AS %[1]s))`
)

// ResealEvents re-seals under the current key at most limit events after
// after that are plain or under another key.
func (o *Ops) ResealEvents(ctx context.Context, after string, limit int) (int, string, error) {
	n, last, err := resealBatch(ctx, o, after, limit, selectEventsToReseal, updateEventSeals, eventSealsRow, func(row Rows) (string, []any, error) {
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

// ResealAttempts is ResealEvents for attempts' response snippets.
func (o *Ops) ResealAttempts(ctx context.Context, after int64, limit int) (int, int64, error) {
	n, last, err := resealBatch(ctx, o, after, limit, selectAttemptsToReseal, updateAttemptSeals, attemptSealsRow, func(row Rows) (int64, []any, error) {
		var (
			id, deliveryID int64
			snippet        []byte
			keyID          *string
		)
		if err := row.Scan(&id, &deliveryID, &snippet, &keyID); err != nil {
			return 0, nil, err
		}
		sealed, _, err := o.b.Payloads.ResealSnippet(deliveryID, snippet, keyID)
		return id, []any{id, sealed}, err
	})
	if err != nil {
		return 0, after, o.fail(ctx, fmt.Sprintf("reseal attempts after %d", after), err)
	}
	return n, last, nil
}

// resealBatch runs, in one write transaction, query for a batch of at
// most limit rows after after that are not under the current key; reseal
// scans each row and returns its id and its row of update's VALUES (row,
// whose %[1]s is Dialect.Blob), which writes them. It returns how many
// rows it wrote and the last one's id. Its errors are not mapped.
func resealBatch[C any](ctx context.Context, o *Ops, after C, limit int, query, update, row string, reseal func(Rows) (C, []any, error)) (int, C, error) {
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
		last   = after
		writes [][]any
	)
	err = o.b.InTx(ctx, func(tx Conn) error {
		rows, err := tx.Query(ctx, query+o.b.Dialect.LockRows, after, current, limit)
		if err != nil {
			return err
		}
		writes, err = collect(rows, err, func(r Rows) ([]any, error) {
			id, args, err := reseal(r)
			last = id
			return args, err
		})
		if err != nil || len(writes) == 0 {
			return err
		}
		return updateRows(ctx, tx, update, fmt.Sprintf(row, o.b.Dialect.Blob), current, writes)
	})
	if err != nil {
		return 0, after, err
	}
	return len(writes), last, nil
}

// updateRows runs update, its VALUES list (its %s) made of rows of row,
// over first and then rows, in as few statements as the limits on
// arguments allow.
func updateRows(ctx context.Context, c Conn, update, row string, first any, rows [][]any) error {
	per := (maxArgs - 1) / len(rows[0])
	for len(rows) > 0 {
		n := min(len(rows), per)
		args := make([]any, 0, 1+n*len(rows[0]))
		args = append(args, first)
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		list := strings.Repeat(row+", ", n-1) + row
		if _, err := c.Exec(ctx, fmt.Sprintf(update, list), args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}
