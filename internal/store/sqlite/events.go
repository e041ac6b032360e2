package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
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

// queryEvent reads the one event a query of selectEvent's columns selects.
func (s *Store) queryEvent(ctx context.Context, query string, args ...any) (store.Event, error) {
	if err := s.enter(); err != nil {
		return store.Event{}, err
	}
	defer s.mu.RUnlock()
	var (
		e               store.Event
		origin, headers string
		occurred        sql.NullInt64
		received        int64
	)
	err := s.reader.QueryRowContext(ctx, query, args...).Scan(
		&e.ID, &e.Source, &e.ProviderEventID, &origin, &e.Type, &e.Body, &e.ContentType,
		&headers, &e.SignatureSlot, &occurred, &received,
	)
	if err != nil {
		return store.Event{}, mapErr(ctx, err)
	}
	if e.Headers, err = decodeHeaders(headers); err != nil {
		return store.Event{}, err
	}
	e.IDOrigin = store.IDOrigin(origin)
	e.Body = nonNil(e.Body)
	e.OccurredAt = fromNullMicros(occurred)
	e.ReceivedAt = fromMicros(received)
	return e, nil
}

// CountEvents returns how many events source stored, or all sources when
// source is empty.
func (s *Store) CountEvents(ctx context.Context, source string) (int64, error) {
	if err := s.enter(); err != nil {
		return 0, fmt.Errorf("count events: %w", err)
	}
	defer s.mu.RUnlock()
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
	if err := s.enter(); err != nil {
		return nil, fmt.Errorf("event deliveries: %w", err)
	}
	defer s.mu.RUnlock()
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
	var (
		d                      store.Delivery
		status                 string
		next, created, updated int64
		leaseUntil, finished   sql.NullInt64
	)
	err := rows.Scan(
		&d.ID, &d.EventID, &d.Destination, &status, &d.Attempts, &d.ReplayCount, &d.OrderingKey,
		&next, &leaseUntil, &d.LastError, &d.LastStatusCode,
		&created, &updated, &finished,
	)
	if err != nil {
		return store.Delivery{}, err
	}
	d.Status = store.DeliveryStatus(status)
	d.NextAttemptAt = fromMicros(next)
	d.LeaseUntil = fromNullMicros(leaseUntil)
	d.CreatedAt = fromMicros(created)
	d.UpdatedAt = fromMicros(updated)
	d.FinishedAt = fromNullMicros(finished)
	return d, nil
}
