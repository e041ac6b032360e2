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

// eventRow receives an event's columns, those eventColumns lists.
type eventRow struct {
	e               store.Event
	origin, headers string
	// query is the stored raw_query, which eventColumns lists last;
	// empty when not read.
	query string
	keyID *string
}

// dest returns the scan destinations of eventColumns but raw_query.
func (r *eventRow) dest() []any {
	e := &r.e
	return []any{
		&e.ID, &e.Source, &e.ProviderEventID, &r.origin, &e.Type, &e.Body, &e.ContentType,
		&r.headers, &e.SignatureSlot, At(&e.OccurredAt), At(&e.ReceivedAt), &r.keyID,
	}
}

// event returns the event scanned, its payload opened with p.
func (r *eventRow) event(p Payloads) (store.Event, error) {
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
