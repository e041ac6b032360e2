package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const selectAttempts = `SELECT id, delivery_id, attempted_at, duration_ms, status_code, error, response_snippet, key_id, round, headers
FROM attempts WHERE delivery_id = ? ORDER BY id`

// DeliveryAttempts returns the attempts of one delivery in the order they
// were recorded; an unknown delivery has none.
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
		if err := row.Scan(&a.ID, &a.DeliveryID, At(&a.AttemptedAt), &ms, &a.StatusCode, &a.Error, &snippet, &keyID, &a.Round, &headers); err != nil {
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
