package sqlstore

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	selectEvent = `SELECT ` + eventColumns + `
FROM hookrelay.events WHERE id = ?`

	// selectEventByProviderID finds the event by its key in event_keys
	// (migration 0038): the events' unique index, or on a partitioned
	// PostgreSQL event log a table of its own.
	selectEventByProviderID = `SELECT ` + eventColumns + `
FROM hookrelay.events
WHERE id = (SELECT event_id FROM hookrelay.event_keys WHERE source = ? AND provider_event_id = ?)`

	countEvents = `SELECT count(*) FROM hookrelay.events`

	countSourceEvents = `SELECT count(*) FROM hookrelay.events WHERE source = ?`

	// selectEventDeliveries orders by destination bytewise: SQLite
	// compares text with BINARY, and PostgreSQL's column has the "C"
	// collation. Its deferred deliveries follow it (eventDeliveries).
	selectEventDeliveries = `SELECT ` + deliveryColumns + `
FROM hookrelay.deliveries WHERE event_id = ?`

	selectDelivery = `SELECT ` + deliveryColumns + `
FROM hookrelay.deliveries WHERE id = ?`
)

// GetEvent returns the event with the given id, or store.ErrNotFound.
func (o *Ops) GetEvent(ctx context.Context, id string) (store.Event, error) {
	e, err := o.queryEvent(ctx, selectEvent, id)
	if err != nil {
		return store.Event{}, fmt.Errorf("get event %s: %w", id, err)
	}
	return e, nil
}

// EventByProviderID returns the event source stored under the provider's
// id, or store.ErrNotFound.
func (o *Ops) EventByProviderID(ctx context.Context, source, providerEventID string) (store.Event, error) {
	e, err := o.queryEvent(ctx, selectEventByProviderID, source, providerEventID)
	if err != nil {
		return store.Event{}, fmt.Errorf("get event %s/%s: %w", source, providerEventID, err)
	}
	return e, nil
}

// queryEvent reads the one event a query of eventColumns selects, its raw
// query included.
func (o *Ops) queryEvent(ctx context.Context, query string, args ...any) (store.Event, error) {
	release, err := o.enter()
	if err != nil {
		return store.Event{}, err
	}
	defer release()
	var r EventRow
	if err := o.b.Read.QueryRow(ctx, query, args...).Scan(append(r.Dest(), &r.query)...); err != nil {
		return store.Event{}, o.b.MapErr(ctx, err)
	}
	return r.Event(o.b.Payloads)
}

// CountEvents returns how many events source stored, or all sources when
// source is empty.
func (o *Ops) CountEvents(ctx context.Context, source string) (int64, error) {
	release, err := o.enter()
	if err != nil {
		return 0, fmt.Errorf("count events: %w", err)
	}
	defer release()
	query, args := countEvents, []any{}
	if source != "" {
		query, args = countSourceEvents, []any{source}
	}
	var n int64
	if err := o.b.Read.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		return 0, o.fail(ctx, "count events", err)
	}
	return n, nil
}

// EventDeliveries returns the deliveries of one event ordered bytewise by
// destination name, those leased at ingest whose rows are not yet written
// among them (deferredDeliveries); an unknown event has none.
func (o *Ops) EventDeliveries(ctx context.Context, eventID string) ([]store.Delivery, error) {
	query := selectEventDeliveries + `
UNION ALL
` + deferredDeliveries(o.b.Dialect) + ` WHERE x.event_id = ?
ORDER BY destination`
	return o.queryDeliveries(ctx, "event deliveries of "+eventID, query, eventID, eventID)
}

// GetDelivery returns the delivery with the given id, one leased at
// ingest whose row is not yet written too (deferredDeliveries), or
// store.ErrNotFound.
func (o *Ops) GetDelivery(ctx context.Context, id int64) (store.Delivery, error) {
	what := fmt.Sprintf("get delivery %d", id)
	query := selectDelivery + `
UNION ALL
` + deferredDeliveries(o.b.Dialect) + ` WHERE x.id = ?`
	ds, err := o.queryDeliveries(ctx, what, query, id, id)
	switch {
	case err != nil:
		return store.Delivery{}, err
	case len(ds) == 0:
		return store.Delivery{}, fmt.Errorf("%s: %w", what, store.ErrNotFound)
	}
	return ds[0], nil
}

// queryDeliveries reads the deliveries a query of deliveryColumns selects;
// what names the read in its error.
func (o *Ops) queryDeliveries(ctx context.Context, what, query string, args ...any) ([]store.Delivery, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	rows, err := o.b.Read.Query(ctx, query, args...)
	ds, err := collect(rows, err, scanDelivery)
	if err != nil {
		return nil, o.fail(ctx, what, err)
	}
	return ds, nil
}
