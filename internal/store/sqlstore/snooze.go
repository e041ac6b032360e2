package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// snoozeDelivery hands delivery ?1, held under lease token ?2, back due
// at ?3, at ?4, without the attempt its claim counted: pending when that
// leaves none, else failed, as it was before the claim.
const snoozeDelivery = `UPDATE hookrelay.deliveries SET
	status = CASE WHEN attempts <= 1 THEN 'pending' ELSE 'failed' END,
	attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END,
	next_attempt_at = ?3, lease_until = NULL, lease_token = NULL, updated_at = ?4
WHERE id = ?1 AND status = 'processing' AND lease_token = ?2`

// SnoozeDelivery hands a held delivery back due at sn.Until, as
// store.Queue says; an error wrapping store.ErrLeaseLost when the lease
// no longer holds.
func (o *Ops) SnoozeDelivery(ctx context.Context, sn store.Snooze) error {
	what := fmt.Sprintf("snooze delivery %d", sn.DeliveryID)
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	if sn.Now.IsZero() {
		sn.Now = time.Now()
	}
	d := o.b.Dialect
	n, err := o.b.Write.Exec(ctx, snoozeDelivery, sn.DeliveryID, sn.LeaseToken, d.Time(sn.Until), d.Time(sn.Now))
	switch {
	case err != nil:
		return o.fail(ctx, what, err)
	case n == 0:
		return fmt.Errorf("%s: %w", what, store.ErrLeaseLost)
	}
	return nil
}
