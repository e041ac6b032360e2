package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// GetEvent returns the event with the given id, or store.ErrNotFound.
func (s *Store) GetEvent(ctx context.Context, id string) (store.Event, error) {
	e, err := s.queryEvent(ctx, selectEvent, id)
	if err != nil {
		return store.Event{}, fmt.Errorf("get event %s: %w", id, err)
	}
	return e, nil
}

// EventByProviderID returns the event source stored under the provider's
// id, or store.ErrNotFound.
func (s *Store) EventByProviderID(ctx context.Context, source, providerEventID string) (store.Event, error) {
	e, err := s.queryEvent(ctx, selectEventByProviderID, source, providerEventID)
	if err != nil {
		return store.Event{}, fmt.Errorf("get event %s/%s: %w", source, providerEventID, err)
	}
	return e, nil
}

// queryEvent reads the one event a query of selectEvent's columns
// selects, its raw query included.
func (s *Store) queryEvent(ctx context.Context, query string, args ...any) (store.Event, error) {
	release, err := s.enter()
	if err != nil {
		return store.Event{}, err
	}
	defer release()
	var r eventRow
	if err := s.reader.QueryRowContext(ctx, query, args...).Scan(append(r.dest(), &r.query)...); err != nil {
		return store.Event{}, mapErr(ctx, err)
	}
	return r.event(s.payloads)
}

// eventRow receives the columns selectEvent lists.
type eventRow struct {
	e               store.Event
	origin, headers string
	// query is the stored raw_query, which selectEvent lists last and the
	// claim does not read; empty when not read.
	query    string
	keyID    *string
	occurred sql.NullInt64
	received int64
}

// dest returns the scan destinations of selectEvent's columns.
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

// CountEvents returns how many events source stored, or all sources when
// source is empty.
func (s *Store) CountEvents(ctx context.Context, source string) (int64, error) {
	release, err := s.enter()
	if err != nil {
		return 0, fmt.Errorf("count events: %w", err)
	}
	defer release()
	query, args := countEvents, []any{}
	if source != "" {
		query, args = countSourceEvents, []any{source}
	}
	var n int64
	if err := s.reader.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count events: %w", mapErr(ctx, err))
	}
	return n, nil
}

// EventDeliveries returns the deliveries of one event ordered bytewise by
// destination name.
func (s *Store) EventDeliveries(ctx context.Context, eventID string) ([]store.Delivery, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("event deliveries: %w", err)
	}
	defer release()
	rows, err := s.reader.QueryContext(ctx, selectEventDeliveries, eventID)
	if err != nil {
		return nil, fmt.Errorf("event deliveries of %s: %w", eventID, mapErr(ctx, err))
	}
	defer rows.Close()
	ds := []store.Delivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("event deliveries of %s: %w", eventID, mapErr(ctx, err))
		}
		ds = append(ds, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("event deliveries of %s: %w", eventID, mapErr(ctx, err))
	}
	return ds, nil
}

// scanDelivery reads one row of the columns selectEventDeliveries lists.
func scanDelivery(rows *sql.Rows) (store.Delivery, error) {
	var r deliveryRow
	if err := rows.Scan(r.dest()...); err != nil {
		return store.Delivery{}, err
	}
	return r.delivery(), nil
}

// deliveryRow receives the columns selectEventDeliveries lists.
type deliveryRow struct {
	d                      store.Delivery
	status                 string
	next, created, updated int64
	leaseUntil, finished   sql.NullInt64
}

// dest returns the scan destinations of selectEventDeliveries' columns.
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
