package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
)

// DeliveryAttempts returns the attempts of one delivery in the order they
// were recorded; an unknown delivery has none.
func (s *Store) DeliveryAttempts(ctx context.Context, deliveryID int64) ([]store.Attempt, error) {
	rows, err := s.other.Query(ctx, selectAttempts, deliveryID)
	if err != nil {
		return nil, fmt.Errorf("attempts of delivery %d: %w", deliveryID, s.mapErr(ctx, err))
	}
	as, err := pgx.AppendRows(make([]store.Attempt, 0), rows, func(row pgx.CollectableRow) (store.Attempt, error) {
		var (
			a       store.Attempt
			ms      int64
			snippet []byte
			keyID   *string
			err     error
		)
		if err := row.Scan(&a.ID, &a.DeliveryID, &a.AttemptedAt, &ms, &a.StatusCode, &a.Error, &snippet, &keyID, &a.Round); err != nil {
			return store.Attempt{}, err
		}
		a.AttemptedAt = a.AttemptedAt.UTC()
		a.Duration = time.Duration(ms) * time.Millisecond
		if a.ResponseSnippet, err = s.payloads.OpenSnippet(a.DeliveryID, snippet, keyID); err != nil {
			return store.Attempt{}, err
		}
		return a, nil
	})
	if err != nil {
		return nil, fmt.Errorf("attempts of delivery %d: %w", deliveryID, s.mapErr(ctx, err))
	}
	return as, nil
}
