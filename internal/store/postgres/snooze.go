package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// snoozeDelivery hands delivery $1, held under lease token $2, back due
// at $3, at $4, without the attempt its claim counted.
const snoozeDelivery = `UPDATE deliveries SET
	status = CASE WHEN attempts <= 1 THEN 'pending' ELSE 'failed' END,
	attempts = greatest(attempts - 1, 0),
	next_attempt_at = $3, lease_until = NULL, lease_token = NULL, updated_at = $4
WHERE id = $1 AND status = 'processing' AND lease_token = $2`

// SnoozeDelivery hands a held delivery back due at s.Until, as
// store.Queue says.
func (s *Store) SnoozeDelivery(ctx context.Context, sn store.Snooze) error {
	if sn.Now.IsZero() {
		sn.Now = time.Now()
	}
	tag, err := s.other.Exec(ctx, snoozeDelivery, sn.DeliveryID, sn.LeaseToken, sn.Until, sn.Now)
	switch {
	case err != nil:
		return fmt.Errorf("snooze delivery %d: %w", sn.DeliveryID, s.mapErr(ctx, err))
	case tag.RowsAffected() == 0:
		return fmt.Errorf("snooze delivery %d: %w", sn.DeliveryID, store.ErrLeaseLost)
	}
	return nil
}
