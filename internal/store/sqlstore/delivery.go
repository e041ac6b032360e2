package sqlstore

import "github.com/hookrelay/hookrelay/internal/store"

// deliveryColumns are the columns of a delivery that scanDelivery reads,
// in its order.
const deliveryColumns = `id, event_id, destination, status, attempts, replay_count, ordering_key,
	next_attempt_at, lease_until, last_error, last_status_code,
	created_at, updated_at, finished_at`

// scanDelivery reads one row of deliveryColumns.
func scanDelivery(row Rows) (store.Delivery, error) {
	var (
		d      store.Delivery
		status string
	)
	err := row.Scan(&d.ID, &d.EventID, &d.Destination, &status, &d.Attempts, &d.ReplayCount, &d.OrderingKey,
		At(&d.NextAttemptAt), At(&d.LeaseUntil), &d.LastError, &d.LastStatusCode,
		At(&d.CreatedAt), At(&d.UpdatedAt), At(&d.FinishedAt))
	d.Status = store.DeliveryStatus(status)
	return d, err
}
