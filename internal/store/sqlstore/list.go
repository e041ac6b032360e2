package sqlstore

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// listColumns are an event's columns but its body and headers, and
	// the body's size, which neither database loads the body to tell:
	// SQLite reads a BLOB's length from the record header, PostgreSQL's
	// length(bytea) a value's size from its TOAST pointer. A sealed body
	// is payloadcrypt.Overhead (28) bytes longer than the body.
	listColumns = `e.id, e.source, e.provider_event_id, e.id_origin, e.type, e.content_type,
	e.signature_slot, e.occurred_at, e.received_at,
	length(e.body) - CASE WHEN e.key_id IS NULL THEN 0 ELSE 28 END`

	// listEvents selects a page of events, newest first by id: the
	// conditions of its filter and cursor (%[1]s) and the placeholder of
	// its limit (%[2]s) are spliced in (see NewPage).
	listEvents = `SELECT ` + listColumns + `
FROM hookrelay.events e
WHERE %[1]s
ORDER BY e.id DESC
LIMIT %[2]s`

	// listDeliveries returns the delivery states of the events whose
	// condition on event_id (see Dialect.InIDs) is spliced in first, from
	// the (event_id, destination) index, and of their deferred deliveries
	// in flight (see deferredInFlight), whose condition on x.event_id is
	// spliced in second, by event and destination.
	listDeliveries = `SELECT event_id, id, destination, status, attempts
FROM hookrelay.deliveries WHERE %s
UNION ALL
SELECT x.event_id, x.id, x.destination, 'processing', 1 FROM %s WHERE %s
ORDER BY event_id, destination`
)

// ListEvents returns one page of the events req's filter selects, newest
// first by id, with their deliveries' states, and the cursor of the next
// page: the page's last id, or empty when no event follows. A page reads
// the newest matching ids below the cursor from the id index, one more
// than the limit to know whether another page follows, and the page's
// deliveries in one more query. For a status few deliveries are in, it
// walks those deliveries instead (see NewStatusPage). A Limit below 1 is DefaultListLimit. A
// bad glob or status is store.ErrBadFilter.
func (o *Ops) ListEvents(ctx context.Context, req store.ListRequest) ([]store.EventSummary, string, error) {
	release, err := o.enter()
	if err != nil {
		return nil, "", fmt.Errorf("list events: %w", err)
	}
	defer release()
	p, ok, err := NewStatusPage(o.b.Dialect, req)
	if !ok {
		p, err = NewPage(o.b.Dialect, listEvents, req)
	}
	if err != nil {
		return nil, "", fmt.Errorf("list events: %w", err)
	}
	events, err := o.listPage(ctx, p.Query, p.Args, p.Room())
	if err != nil {
		return nil, "", o.fail(ctx, "list events", err)
	}
	events, next := p.Cut(events)
	if err := o.attachStates(ctx, events); err != nil {
		return nil, "", o.fail(ctx, "list events", err)
	}
	return events, next, nil
}

// listPage reads the events a query of listColumns selects, with room
// for capacity of them; each has no deliveries yet.
func (o *Ops) listPage(ctx context.Context, query string, args []any, capacity int) ([]store.EventSummary, error) {
	rows, err := o.b.Read.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	events := make([]store.EventSummary, 0, capacity)
	// One set of scan destinations serves every row: each row's own
	// would escape to the heap.
	var (
		es     store.EventSummary
		origin string
	)
	e := &es.Event
	dest := []any{&e.ID, &e.Source, &e.ProviderEventID, &origin, &e.Type, &e.ContentType,
		&e.SignatureSlot, At(&e.OccurredAt), At(&e.ReceivedAt), &es.BodySize}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		e.IDOrigin = store.IDOrigin(origin)
		es.Deliveries = []store.DeliveryState{}
		events = append(events, es)
	}
	return events, rows.Err()
}

// attachStates reads the deliveries of events in one query.
func (o *Ops) attachStates(ctx context.Context, events []store.EventSummary) error {
	if len(events) == 0 {
		return nil
	}
	ids, add := AttachStates(events)
	w := NewWhere(o.b.Dialect)
	o.b.Dialect.InIDs(w, []string{"event_id"}, ids)
	deferred := NewWhere(o.b.Dialect, w.Args()...) // its placeholders follow w's
	o.b.Dialect.InIDs(deferred, []string{"x.event_id"}, ids)
	query := fmt.Sprintf(listDeliveries, w.SQL(), deferredInFlight(o.b.Dialect), deferred.SQL())
	rows, err := o.b.Read.Query(ctx, query, deferred.Args()...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		eventID, status string
		st              store.DeliveryState
	)
	dest := []any{&eventID, &st.ID, &st.Destination, &status, &st.Attempts}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		st.Status = store.DeliveryStatus(status)
		add(eventID, st)
	}
	return rows.Err()
}
