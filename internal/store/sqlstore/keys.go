package sqlstore

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	countEventKeys   = `SELECT key_id, count(*) FROM hookrelay.events GROUP BY key_id`
	countAttemptKeys = `SELECT key_id, count(*) FROM hookrelay.attempts GROUP BY key_id`
)

// PayloadKeyCounts returns how many events and attempts are stored under
// each key id, "" for plain.
func (o *Ops) PayloadKeyCounts(ctx context.Context) (store.KeyCounts, error) {
	release, err := o.enter()
	if err != nil {
		return store.KeyCounts{}, fmt.Errorf("count payload keys: %w", err)
	}
	defer release()
	c := store.KeyCounts{Events: map[string]int64{}, Attempts: map[string]int64{}}
	for _, q := range []struct {
		query  string
		counts map[string]int64
	}{{countEventKeys, c.Events}, {countAttemptKeys, c.Attempts}} {
		if err := o.countKeys(ctx, q.query, q.counts); err != nil {
			return store.KeyCounts{}, o.fail(ctx, "count payload keys", err)
		}
	}
	return c, nil
}

// countKeys adds the rows of a count by key id to counts.
func (o *Ops) countKeys(ctx context.Context, query string, counts map[string]int64) error {
	rows, err := o.b.Read.Query(ctx, query)
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
		CountKey(counts, keyID, n)
	}
	return rows.Err()
}
