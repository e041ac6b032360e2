package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

var _ store.Operations = (*Store)(nil)

// ListEvents returns one page of the events f selects, newest first by
// id, with their deliveries' states, and the cursor of the next page:
// the page's last id, or empty when no event follows. It reads one more
// event than the limit to know whether another page follows, and the
// page's deliveries in one more query. A Limit below 1 is 50. A bad glob
// or status is store.ErrBadFilter.
func (s *Store) ListEvents(ctx context.Context, req store.ListRequest) ([]store.EventSummary, string, error) {
	release, err := s.enter()
	if err != nil {
		return nil, "", fmt.Errorf("list events: %w", err)
	}
	defer release()
	p, err := sqlstore.NewPage(dialect, listEvents, req)
	if err != nil {
		return nil, "", fmt.Errorf("list events: %w", err)
	}
	events, err := s.listPage(ctx, p.Query, p.Args, p.Room())
	if err != nil {
		return nil, "", fmt.Errorf("list events: %w", mapErr(ctx, err))
	}
	events, next := p.Cut(events)
	if err := s.attachStates(ctx, events); err != nil {
		return nil, "", fmt.Errorf("list events: %w", mapErr(ctx, err))
	}
	return events, next, nil
}

// listPage reads the events of a page.
func (s *Store) listPage(ctx context.Context, query string, args []any, capacity int) ([]store.EventSummary, error) {
	rows, err := s.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	events := make([]store.EventSummary, 0, capacity)
	for rows.Next() {
		var (
			es       store.EventSummary
			origin   string
			occurred sql.NullInt64
			received int64
		)
		e := &es.Event
		if err := rows.Scan(&e.ID, &e.Source, &e.ProviderEventID, &origin, &e.Type, &e.ContentType,
			&e.SignatureSlot, &occurred, &received, &es.BodySize); err != nil {
			return nil, err
		}
		e.IDOrigin = store.IDOrigin(origin)
		e.OccurredAt = fromNullMicros(occurred)
		e.ReceivedAt = fromMicros(received)
		es.Deliveries = []store.DeliveryState{}
		events = append(events, es)
	}
	return events, rows.Err()
}

// attachStates reads the deliveries of events in one query.
func (s *Store) attachStates(ctx context.Context, events []store.EventSummary) error {
	if len(events) == 0 {
		return nil
	}
	ids, add := sqlstore.AttachStates(events)
	rows, err := s.reader.QueryContext(ctx, listDeliveries, jsonArray(ids))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			eventID, status string
			st              store.DeliveryState
		)
		if err := rows.Scan(&eventID, &st.ID, &st.Destination, &status, &st.Attempts); err != nil {
			return err
		}
		st.Status = store.DeliveryStatus(status)
		add(eventID, st)
	}
	return rows.Err()
}
