package sqlite

import (
	"database/sql"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// eventRow receives an event's columns as a claim reads them (see
// selectClaimedHead); GetEvent reads them in sqlstore.
type eventRow struct {
	e               store.Event
	origin, headers string
	// query is the stored raw_query, which a claim does not read: empty.
	query    string
	keyID    *string
	occurred sql.NullInt64
	received int64
}

// dest returns the scan destinations of an event's columns.
func (r *eventRow) dest() []any {
	e := &r.e
	return []any{
		&e.ID, &e.Source, &e.ProviderEventID, &r.origin, &e.Type, &e.Body, &e.ContentType,
		&r.headers, &e.SignatureSlot, &r.occurred, &r.received, &r.keyID,
	}
}

// event returns the event scanned, its payload opened with p.
func (r *eventRow) event(p sqlstore.Payloads) (store.Event, error) {
	e := r.e
	if err := p.OpenEvent(&e, r.headers, r.keyID); err != nil {
		return store.Event{}, err
	}
	var err error
	if e.RawQuery, err = p.OpenQuery(e.ID, r.query, r.keyID); err != nil {
		return store.Event{}, err
	}
	e.IDOrigin = store.IDOrigin(r.origin)
	e.OccurredAt = fromNullMicros(r.occurred)
	e.ReceivedAt = fromMicros(r.received)
	return e, nil
}

// scanDelivery reads one row of a delivery's columns, those deliveryRow
// receives.
func scanDelivery(rows *sql.Rows) (store.Delivery, error) {
	var r deliveryRow
	if err := rows.Scan(r.dest()...); err != nil {
		return store.Delivery{}, err
	}
	return r.delivery(), nil
}

// deliveryRow receives a delivery's columns as a claim and skipDelivery
// read them; EventDeliveries reads them in sqlstore.
type deliveryRow struct {
	d                      store.Delivery
	status                 string
	next, created, updated int64
	leaseUntil, finished   sql.NullInt64
}

// dest returns the scan destinations of a delivery's columns.
func (r *deliveryRow) dest() []any {
	d := &r.d
	return []any{
		&d.ID, &d.EventID, &d.Destination, &r.status, &d.Attempts, &d.ReplayCount, &d.OrderingKey,
		&r.next, &r.leaseUntil, &d.LastError, &d.LastStatusCode,
		&r.created, &r.updated, &r.finished,
	}
}

// delivery returns the delivery scanned.
func (r *deliveryRow) delivery() store.Delivery {
	d := r.d
	d.Status = store.DeliveryStatus(r.status)
	d.NextAttemptAt = fromMicros(r.next)
	d.LeaseUntil = fromNullMicros(r.leaseUntil)
	d.CreatedAt = fromMicros(r.created)
	d.UpdatedAt = fromMicros(r.updated)
	d.FinishedAt = fromNullMicros(r.finished)
	return d
}
