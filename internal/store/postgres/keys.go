package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// PayloadKeyCounts returns how many events and attempts are stored under
// each key id, "" for plain.
func (s *Store) PayloadKeyCounts(ctx context.Context) (store.KeyCounts, error) {
	c := store.KeyCounts{Events: map[string]int64{}, Attempts: map[string]int64{}}
	for _, q := range []struct {
		query  string
		counts map[string]int64
	}{{countEventKeys, c.Events}, {countAttemptKeys, c.Attempts}} {
		rows, err := s.other.Query(ctx, q.query)
		if err != nil {
			return store.KeyCounts{}, fmt.Errorf("count payload keys: %w", s.mapErr(ctx, err))
		}
		var (
			keyID *string
			n     int64
		)
		if _, err := pgx.ForEachRow(rows, []any{&keyID, &n}, func() error {
			sqlstore.CountKey(q.counts, keyID, n)
			return nil
		}); err != nil {
			return store.KeyCounts{}, fmt.Errorf("count payload keys: %w", s.mapErr(ctx, err))
		}
	}
	return c, nil
}

// ResealEvents re-seals under the current key at most limit events after
// after that are plain or under another key.
func (s *Store) ResealEvents(ctx context.Context, after string, limit int) (int, string, error) {
	var (
		id, h, q              string
		body                  []byte
		keyID                 *string
		ids, headers, queries []string
		bodies                [][]byte
	)
	n, err := s.resealBatch(ctx, after, limit, selectEventsToReseal, []any{&id, &body, &h, &q, &keyID}, func() error {
		sealed, err := s.payloads.ResealEvent(id, body, h, q, keyID)
		ids, bodies, headers = append(ids, id), append(bodies, sealed.Body), append(headers, sealed.Headers)
		queries = append(queries, sealed.Query)
		return err
	}, func(tx pgx.Tx, current string) error {
		_, err := tx.Exec(ctx, updateEventSeals, ids, bodies, headers, current, queries)
		return err
	})
	if err != nil || n == 0 {
		return 0, after, wrapReseal(err, "reseal events after %q", after)
	}
	return n, ids[n-1], nil
}

// ResealAttempts is ResealEvents for attempts' response snippets.
func (s *Store) ResealAttempts(ctx context.Context, after int64, limit int) (int, int64, error) {
	var (
		id, deliveryID int64
		snippet        []byte
		keyID          *string
		ids            []int64
		snippets       [][]byte
	)
	n, err := s.resealBatch(ctx, after, limit, selectAttemptsToReseal, []any{&id, &deliveryID, &snippet, &keyID}, func() error {
		sealed, _, err := s.payloads.ResealSnippet(deliveryID, snippet, keyID)
		ids, snippets = append(ids, id), append(snippets, sealed)
		return err
	}, func(tx pgx.Tx, current string) error {
		_, err := tx.Exec(ctx, updateAttemptSeals, ids, snippets, current)
		return err
	})
	if err != nil || n == 0 {
		return 0, after, wrapReseal(err, "reseal attempts after %d", after)
	}
	return n, ids[n-1], nil
}

// resealBatch runs, in one transaction, query for a batch after after
// that is not under the current key, locking its rows (FOR NO KEY
// UPDATE, which does not hold off the deliveries that reference them)
// until the transaction ends; scans each row into dest and calls reseal,
// then write with the current key id. It returns how many rows it read.
func (s *Store) resealBatch(ctx context.Context, after any, limit int, query string, dest []any, reseal func() error, write func(pgx.Tx, string) error) (int, error) {
	if s.closed.Load() {
		return 0, fmt.Errorf("%w: store closed", store.ErrUnavailable)
	}
	current, err := s.payloads.Current()
	if err != nil {
		return 0, err
	}
	n := 0
	err = pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, query, after, current, limit)
		if err != nil {
			return err
		}
		if _, err := pgx.ForEachRow(rows, dest, func() error {
			n++
			return reseal()
		}); err != nil || n == 0 {
			return err
		}
		return write(tx, current)
	})
	if err != nil {
		return 0, s.mapErr(ctx, err)
	}
	return n, nil
}

// wrapReseal wraps a re-sealing error with what was re-sealed; nil stays
// nil.
func wrapReseal(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
