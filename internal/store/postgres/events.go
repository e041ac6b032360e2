package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// eventRow receives an event's columns as a claim reads them (see
// claimRows); GetEvent reads them in sqlstore.
type eventRow struct {
	e               store.Event
	origin, headers string
	// query is the stored raw_query, which a claim does not read: empty.
	query    string
	occurred *time.Time
	keyID    *string
}

// dest returns the scan destinations of an event's columns.
func (r *eventRow) dest() []any {
	e := &r.e
	return []any{
		&e.ID, &e.Source, &e.ProviderEventID, &r.origin, &e.Type, &e.Body, &e.ContentType,
		&r.headers, &e.SignatureSlot, &r.occurred, &e.ReceivedAt, &r.keyID,
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
	e.OccurredAt = fromNullTime(r.occurred)
	e.ReceivedAt = e.ReceivedAt.UTC()
	return e, nil
}

// scanDelivery reads one row of a delivery's columns, those deliveryRow
// receives.
func scanDelivery(row pgx.CollectableRow) (store.Delivery, error) {
	var r deliveryRow
	if err := row.Scan(r.dest()...); err != nil {
		return store.Delivery{}, err
	}
	return r.delivery(), nil
}

// deliveryRow receives a delivery's columns as a claim and skipDelivery
// read them; EventDeliveries reads them in sqlstore.
type deliveryRow struct {
	d                    store.Delivery
	status               string
	leaseUntil, finished *time.Time
}

// dest returns the scan destinations of a delivery's columns.
func (r *deliveryRow) dest() []any {
	d := &r.d
	return []any{
		&d.ID, &d.EventID, &d.Destination, &r.status, &d.Attempts, &d.ReplayCount, &d.OrderingKey,
		&d.NextAttemptAt, &r.leaseUntil, &d.LastError, &d.LastStatusCode,
		&d.CreatedAt, &d.UpdatedAt, &r.finished,
	}
}

// delivery returns the delivery scanned.
func (r *deliveryRow) delivery() store.Delivery {
	d := r.d
	d.Status = store.DeliveryStatus(r.status)
	d.NextAttemptAt = d.NextAttemptAt.UTC()
	d.LeaseUntil = fromNullTime(r.leaseUntil)
	d.CreatedAt = d.CreatedAt.UTC()
	d.UpdatedAt = d.UpdatedAt.UTC()
	d.FinishedAt = fromNullTime(r.finished)
	return d
}
