package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// PayloadKeyCounts returns how many events and attempts are stored under
// each key id, "" for plain.
func (s *Store) PayloadKeyCounts(ctx context.Context) (store.KeyCounts, error) {
	release, err := s.enter()
	if err != nil {
		return store.KeyCounts{}, fmt.Errorf("count payload keys: %w", err)
	}
	defer release()
	c := store.KeyCounts{Events: map[string]int64{}, Attempts: map[string]int64{}}
	for _, q := range []struct {
		query  string
		counts map[string]int64
	}{{countEventKeys, c.Events}, {countAttemptKeys, c.Attempts}} {
		if err := s.countKeys(ctx, q.query, q.counts); err != nil {
			return store.KeyCounts{}, fmt.Errorf("count payload keys: %w", mapErr(ctx, err))
		}
	}
	return c, nil
}

// countKeys adds the rows of a count by key id to counts.
func (s *Store) countKeys(ctx context.Context, query string, counts map[string]int64) error {
	rows, err := s.reader.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			keyID *string
			n     int64
		)
		if err := rows.Scan(&keyID, &n); err != nil {
			return err
		}
		sqlstore.CountKey(counts, keyID, n)
	}
	return rows.Err()
}

// ResealEvents re-seals under the current key at most limit events after
// after that are plain or under another key.
func (s *Store) ResealEvents(ctx context.Context, after string, limit int) (int, string, error) {
	n, last, err := resealBatch(ctx, s, after, limit, selectEventsToReseal, updateEventSeal, func(rows *sql.Rows) (string, []any, error) {
		var (
			id, headers, query string
			body               []byte
			keyID              *string
		)
		if err := rows.Scan(&id, &body, &headers, &query, &keyID); err != nil {
			return "", nil, err
		}
		sealed, err := s.payloads.ResealEvent(id, body, headers, query, keyID)
		return id, []any{sealed.Body, sealed.Headers, sealed.Query, sealed.KeyID, id}, err
	})
	if err != nil {
		return 0, after, fmt.Errorf("reseal events after %q: %w", after, err)
	}
	return n, last, nil
}

// ResealAttempts is ResealEvents for attempts' response snippets.
func (s *Store) ResealAttempts(ctx context.Context, after int64, limit int) (int, int64, error) {
	n, last, err := resealBatch(ctx, s, after, limit, selectAttemptsToReseal, updateAttemptSeal, func(rows *sql.Rows) (int64, []any, error) {
		var (
			id, deliveryID int64
			snippet        []byte
			keyID          *string
		)
		if err := rows.Scan(&id, &deliveryID, &snippet, &keyID); err != nil {
			return 0, nil, err
		}
		sealed, sealedKey, err := s.payloads.ResealSnippet(deliveryID, snippet, keyID)
		return id, []any{sealed, sealedKey, id}, err
	})
	if err != nil {
		return 0, after, fmt.Errorf("reseal attempts after %d: %w", after, err)
	}
	return n, last, nil
}

// resealBatch runs, in one transaction of the writer (so that nothing
// changes the rows between read and write), query for a batch after after
// that is not under the current key; reseal scans each row and returns
// its id and the arguments of update, which writes it. It returns how many
// rows it wrote and the last one's id.
func resealBatch[C any](ctx context.Context, s *Store, after C, limit int, query, update string, reseal func(*sql.Rows) (C, []any, error)) (int, C, error) {
	release, err := s.enter()
	if err != nil {
		return 0, after, err
	}
	defer release()
	current, err := s.payloads.Current()
	if err != nil {
		return 0, after, err
	}
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return 0, after, mapErr(ctx, err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, query, after, current, limit)
	if err != nil {
		return 0, after, mapErr(ctx, err)
	}
	var (
		last   = after
		writes [][]any
	)
	for rows.Next() {
		id, args, err := reseal(rows)
		if err != nil {
			rows.Close()
			return 0, after, mapErr(ctx, err)
		}
		last, writes = id, append(writes, args)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, after, mapErr(ctx, err)
	}
	for _, args := range writes {
		if _, err := tx.ExecContext(ctx, update, args...); err != nil {
			return 0, after, mapErr(ctx, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, after, mapErr(ctx, err)
	}
	return len(writes), last, nil
}
