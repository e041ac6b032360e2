package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// defaultListLimit is the page size of a ListRequest without a Limit.
const defaultListLimit = 50

// maxPrealloc bounds the room made for a page before it is read, whatever
// the Limit asked.
const maxPrealloc = 1024

var _ store.Operations = (*Store)(nil)

// ListEvents returns one page of the events f selects, newest first by
// id, with their deliveries' states, and the cursor of the next page:
// the page's last id, or empty when no event follows. It reads one more
// event than the limit to know whether another page follows, and the
// page's deliveries in one more query. A Limit below 1 is 50. A bad glob
// or status is store.ErrBadFilter.
func (s *Store) ListEvents(ctx context.Context, req store.ListRequest) ([]store.EventSummary, string, error) {
	if err := s.enter(); err != nil {
		return nil, "", fmt.Errorf("list events: %w", err)
	}
	defer s.mu.RUnlock()
	limit := req.Limit
	if limit < 1 {
		limit = defaultListLimit
	}
	query, args, err := listQuery(req.Filter, req.Cursor, limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("list events: %w", err)
	}
	events, err := s.listPage(ctx, query, args, min(limit+1, maxPrealloc))
	if err != nil {
		return nil, "", fmt.Errorf("list events: %w", mapErr(ctx, err))
	}
	next := ""
	if len(events) > limit {
		events = events[:limit]
		next = events[limit-1].Event.ID
	}
	if err := s.attachStates(ctx, events); err != nil {
		return nil, "", fmt.Errorf("list events: %w", mapErr(ctx, err))
	}
	return events, next, nil
}

// listQuery returns the query of up to limit events f selects with ids
// below cursor (when set), newest first.
func listQuery(f store.EventFilter, cursor string, limit int) (string, []any, error) {
	w := sqlstore.NewWhere(dialect)
	if err := w.FilterEvents(f); err != nil {
		return "", nil, err
	}
	if cursor != "" {
		w.Add("e.id < %s", cursor)
	}
	limitArg := w.Arg(limit)
	return fmt.Sprintf(listEvents, w.SQL(), limitArg), w.Args(), nil
}

// listPage runs a listQuery.
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
	ids := make([]string, len(events))
	index := make(map[string]int, len(events))
	for i, e := range events {
		ids[i], index[e.Event.ID] = e.Event.ID, i
	}
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
		i := index[eventID]
		events[i].Deliveries = append(events[i].Deliveries, st)
	}
	return rows.Err()
}
