package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// DeliveryAttempts returns the attempts of one delivery in the order they
// were recorded; an unknown delivery has none.
func (s *Store) DeliveryAttempts(ctx context.Context, deliveryID int64) ([]store.Attempt, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("attempts of delivery %d: %w", deliveryID, err)
	}
	defer release()
	rows, err := s.reader.QueryContext(ctx, selectAttempts, deliveryID)
	if err != nil {
		return nil, fmt.Errorf("attempts of delivery %d: %w", deliveryID, mapErr(ctx, err))
	}
	defer rows.Close()
	as := []store.Attempt{}
	for rows.Next() {
		var (
			a       store.Attempt
			at, ms  int64
			snippet []byte
			keyID   *string
		)
		if err := rows.Scan(&a.ID, &a.DeliveryID, &at, &ms, &a.StatusCode, &a.Error, &snippet, &keyID, &a.Round); err != nil {
			return nil, fmt.Errorf("attempts of delivery %d: %w", deliveryID, mapErr(ctx, err))
		}
		a.AttemptedAt = fromMicros(at)
		a.Duration = time.Duration(ms) * time.Millisecond
		if a.ResponseSnippet, err = s.payloads.OpenSnippet(a.DeliveryID, snippet, keyID); err != nil {
			return nil, fmt.Errorf("attempts of delivery %d: %w", deliveryID, err)
		}
		as = append(as, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("attempts of delivery %d: %w", deliveryID, mapErr(ctx, err))
	}
	return as, nil
}
