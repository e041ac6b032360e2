package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

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
	var (
		e               store.Event
		origin, headers string
		occurred        *time.Time
	)
	err := s.other.QueryRow(ctx, query, args...).Scan(
		&e.ID, &e.Source, &e.ProviderEventID, &origin, &e.Type, &e.Body, &e.ContentType,
		&headers, &e.SignatureSlot, &occurred, &e.ReceivedAt,
	)
	if err != nil {
		return store.Event{}, s.mapErr(ctx, err)
	}
	if e.Headers, err = decodeHeaders(headers); err != nil {
		return store.Event{}, err
	}
	if e.Body == nil {
		e.Body = []byte{}
	}
	e.IDOrigin = store.IDOrigin(origin)
	e.OccurredAt = fromNullTime(occurred)
	e.ReceivedAt = e.ReceivedAt.UTC()
	return e, nil
}

// CountEvents returns how many events source stored, or all sources when
// source is empty.
func (s *Store) CountEvents(ctx context.Context, source string) (int64, error) {
	query, args := countEvents, []any{}
	if source != "" {
		query, args = countSourceEvents, []any{source}
	}
	var n int64
	if err := s.other.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count events: %w", s.mapErr(ctx, err))
	}
	return n, nil
}

// EventDeliveries returns the deliveries of one event ordered bytewise by
// destination name (the column's collation is "C").
func (s *Store) EventDeliveries(ctx context.Context, eventID string) ([]store.Delivery, error) {
	rows, err := s.other.Query(ctx, selectEventDeliveries, eventID)
	if err != nil {
		return nil, fmt.Errorf("event deliveries of %s: %w", eventID, s.mapErr(ctx, err))
	}
	ds, err := pgx.AppendRows(make([]store.Delivery, 0), rows, scanDelivery)
	if err != nil {
		return nil, fmt.Errorf("event deliveries of %s: %w", eventID, s.mapErr(ctx, err))
	}
	return ds, nil
}

// scanDelivery reads one row of the columns selectEventDeliveries lists.
func scanDelivery(row pgx.CollectableRow) (store.Delivery, error) {
	var (
		d                    store.Delivery
		status               string
		leaseUntil, finished *time.Time
	)
	err := row.Scan(
		&d.ID, &d.EventID, &d.Destination, &status, &d.Attempts, &d.ReplayCount, &d.OrderingKey,
		&d.NextAttemptAt, &leaseUntil, &d.LastError, &d.LastStatusCode,
		&d.CreatedAt, &d.UpdatedAt, &finished,
	)
	if err != nil {
		return store.Delivery{}, err
	}
	d.Status = store.DeliveryStatus(status)
	d.NextAttemptAt = d.NextAttemptAt.UTC()
	d.LeaseUntil = fromNullTime(leaseUntil)
	d.CreatedAt = d.CreatedAt.UTC()
	d.UpdatedAt = d.UpdatedAt.UTC()
	d.FinishedAt = fromNullTime(finished)
	return d, nil
}
