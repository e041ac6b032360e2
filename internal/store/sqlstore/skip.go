package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// skipDelivery makes a live delivery skipped and final, its lease
	// cleared so that a late holder's outcome is refused.
	skipDelivery = `UPDATE hookrelay.deliveries SET
	status = 'skipped', lease_until = NULL, lease_token = NULL,
	finished_at = ?1, updated_at = ?1, last_error = ?2
WHERE id = ?3 AND status IN ('pending', 'failed', 'processing')
RETURNING ` + deliveryColumns

	deliveryExists = `SELECT EXISTS (SELECT 1 FROM hookrelay.deliveries WHERE id = ?)`
)

// SkipDelivery makes a live delivery skipped and writes the audit row, in
// one transaction. It fails with store.ErrNotFound for an unknown delivery
// and store.ErrFinal for a final one.
func (o *Ops) SkipDelivery(ctx context.Context, id int64, actor string, now time.Time) (store.Delivery, error) {
	what := fmt.Sprintf("skip delivery %d", id)
	release, err := o.enter()
	if err != nil {
		return store.Delivery{}, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	var d store.Delivery
	err = o.b.InTx(ctx, func(tx Conn) error {
		rows, err := tx.Query(ctx, skipDelivery, o.b.Dialect.Time(now), SkipNote(actor), id)
		ds, err := collect(rows, err, scanDelivery)
		if err != nil {
			return err
		}
		if len(ds) == 0 {
			var exists bool
			if err := tx.QueryRow(ctx, deliveryExists, id).Scan(&exists); err != nil {
				return err
			}
			if !exists {
				return store.ErrNotFound
			}
			return store.ErrFinal
		}
		d = ds[0]
		_, err = tx.Exec(ctx, insertAction, o.b.Dialect.Time(now), actor, AuditDelivery(d), store.AuditSkip)
		return err
	})
	if err != nil {
		return store.Delivery{}, o.fail(ctx, what, err)
	}
	return d, nil
}
