package sqlstore

import "github.com/hookrelay/hookrelay/internal/store"

const (
	// eventColumns are an event's columns as eventRow reads them, then
	// its raw query, which only the statements that read one event list.
	eventColumns = `id, source, provider_event_id, id_origin, type, body, content_type,
	headers, signature_slot, occurred_at, received_at, key_id, raw_query`

	// deliveryColumns are a delivery's columns as scanDelivery reads
	// them.
	deliveryColumns = `id, event_id, destination, status, attempts, replay_count, ordering_key,
	next_attempt_at, lease_until, last_error, last_status_code,
	created_at, updated_at, finished_at`
)

// EventRow receives an event's columns, those eventColumns lists: the
// operations' reads and the drivers' claims scan events with it.
type EventRow struct {
	e               store.Event
	origin, headers string
	// query is the stored raw_query, which eventColumns lists last;
	// empty when not read.
	query string
	keyID *string
}

// Dest returns the scan destinations of eventColumns but raw_query.
func (r *EventRow) Dest() []any {
	e := &r.e
	return []any{
		&e.ID, &e.Source, &e.ProviderEventID, &r.origin, &e.Type, &e.Body, &e.ContentType,
		&r.headers, &e.SignatureSlot, At(&e.OccurredAt), At(&e.ReceivedAt), &r.keyID,
	}
}

// Event returns the event scanned, its payload opened with p.
func (r *EventRow) Event(p Payloads) (store.Event, error) {
	e := r.e
	if err := p.OpenEvent(&e, r.headers, r.keyID); err != nil {
		return store.Event{}, err
	}
	var err error
	if e.RawQuery, err = p.OpenQuery(e.ID, r.query, r.keyID); err != nil {
		return store.Event{}, err
	}
	e.IDOrigin = store.IDOrigin(r.origin)
	return e, nil
}

// DeliveryRow receives a delivery's columns, those deliveryColumns lists:
// the operations' reads and the drivers' claims scan deliveries with it.
type DeliveryRow struct {
	d      store.Delivery
	status string
}

// Dest returns the scan destinations of deliveryColumns.
func (r *DeliveryRow) Dest() []any {
	d := &r.d
	return []any{&d.ID, &d.EventID, &d.Destination, &r.status, &d.Attempts, &d.ReplayCount, &d.OrderingKey,
		At(&d.NextAttemptAt), At(&d.LeaseUntil), &d.LastError, &d.LastStatusCode,
		At(&d.CreatedAt), At(&d.UpdatedAt), At(&d.FinishedAt)}
}

// Delivery returns the delivery scanned.
func (r *DeliveryRow) Delivery() store.Delivery {
	d := r.d
	d.Status = store.DeliveryStatus(r.status)
	return d
}

// scanDelivery reads one row of deliveryColumns.
func scanDelivery(row Rows) (store.Delivery, error) {
	var r DeliveryRow
	err := row.Scan(r.Dest()...)
	return r.Delivery(), err
}
