package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// selectAttempts reads a delivery's attempts in the order they were
	// made: its rows of attempts, then the attempt that ended it done,
	// which its row keeps instead (migration 0028; none for a delivery
	// not done, or done before that migration), as ID 0. One statement
	// reads both, so that a replay that moves the second into the first
	// meanwhile shows it once.
	selectAttempts = `SELECT 0 AS kept, id, delivery_id, attempted_at, duration_ms, status_code, error, response_snippet, key_id, round, headers
FROM hookrelay.attempts WHERE delivery_id = ?1
UNION ALL
SELECT 1, 0, id, last_attempted_at, last_duration_ms, last_status_code, '', NULL, NULL, replay_count, NULL
FROM hookrelay.deliveries WHERE id = ?1 AND status = 'done' AND last_attempted_at IS NOT NULL
ORDER BY kept, id`

	// keepDoneAttempts writes into attempts the attempt that ended each
	// delivery of a list (%[1]s) done, before a replay re-arms it and
	// clears the row's copy, with a condition on the status the replay
	// re-arms (%[2]s): the replay round of that attempt stays listed.
	keepDoneAttempts = `INSERT INTO hookrelay.attempts (delivery_id, attempted_at, duration_ms, status_code, round)
SELECT d.id, d.last_attempted_at, d.last_duration_ms, d.last_status_code, d.replay_count
FROM hookrelay.deliveries d
WHERE %[1]s AND d.status = 'done' AND d.last_attempted_at IS NOT NULL %[2]s`
)

// DeliveryAttempts returns the attempts of one delivery in the order they
// were recorded, the one that ended it done last: that one has ID 0, as
// its delivery's row keeps it rather than a row of attempts. An unknown
// delivery has none.
func (o *Ops) DeliveryAttempts(ctx context.Context, deliveryID int64) ([]store.Attempt, error) {
	what := fmt.Sprintf("attempts of delivery %d", deliveryID)
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	rows, err := o.b.Read.Query(ctx, selectAttempts, deliveryID)
	as, err := collect(rows, err, func(row Rows) (store.Attempt, error) {
		var (
			a       store.Attempt
			ms      int64
			snippet []byte
			headers []byte
			keyID   *string
		)
		if err := row.Scan(new(int), &a.ID, &a.DeliveryID, At(&a.AttemptedAt), &ms, &a.StatusCode, &a.Error, &snippet, &keyID, &a.Round, &headers); err != nil {
			return a, err
		}
		a.Duration = time.Duration(ms) * time.Millisecond
		var err error
		if a.ResponseSnippet, err = o.b.Payloads.OpenSnippet(a.DeliveryID, snippet, keyID); err != nil {
			return a, err
		}
		if headers, err = o.b.Payloads.OpenAttemptHeaders(a.DeliveryID, headers, keyID); err != nil {
			return a, err
		}
		return a, DecodeAttemptHeaders(headers, &a)
	})
	if err != nil {
		return nil, o.fail(ctx, what, err)
	}
	return as, nil
}
