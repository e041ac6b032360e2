package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

var _ store.Operations = (*Store)(nil)

// ListEvents returns one page of the events f selects, newest first by
// id, with their deliveries' states, and the cursor of the next page:
// the page's last id, or empty when no event follows. A page reads the
// newest matching ids below the cursor from an id index, one more than
// the limit to know whether another page follows, and the page's
// deliveries in one more query. A Limit below 1 is 50. A bad glob or
// status is store.ErrBadFilter.
func (s *Store) ListEvents(ctx context.Context, req store.ListRequest) ([]store.EventSummary, string, error) {
	p, err := sqlstore.NewPage(dialect, listEvents, req)
	if err != nil {
		return nil, "", fmt.Errorf("list events: %w", err)
	}
	rows, err := s.other.Query(ctx, p.Query, p.Args...)
	if err != nil {
		return nil, "", fmt.Errorf("list events: %w", s.mapErr(ctx, err))
	}
	events, err := pgx.AppendRows(make([]store.EventSummary, 0, p.Room()), rows, scanSummary)
	if err != nil {
		return nil, "", fmt.Errorf("list events: %w", s.mapErr(ctx, err))
	}
	events, next := p.Cut(events)
	if err := s.attachStates(ctx, events); err != nil {
		return nil, "", fmt.Errorf("list events: %w", err)
	}
	return events, next, nil
}

// scanSummary reads one row of listColumns.
func scanSummary(row pgx.CollectableRow) (store.EventSummary, error) {
	var (
		es       store.EventSummary
		origin   string
		occurred *time.Time
	)
	e := &es.Event
	if err := row.Scan(&e.ID, &e.Source, &e.ProviderEventID, &origin, &e.Type, &e.ContentType,
		&e.SignatureSlot, &occurred, &e.ReceivedAt, &es.BodySize); err != nil {
		return store.EventSummary{}, err
	}
	e.IDOrigin = store.IDOrigin(origin)
	e.OccurredAt = fromNullTime(occurred)
	e.ReceivedAt = e.ReceivedAt.UTC()
	es.Deliveries = []store.DeliveryState{}
	return es, nil
}

// attachStates reads the deliveries of events in one query.
func (s *Store) attachStates(ctx context.Context, events []store.EventSummary) error {
	if len(events) == 0 {
		return nil
	}
	ids, add := sqlstore.AttachStates(events)
	rows, err := s.other.Query(ctx, listDeliveries, ids)
	if err != nil {
		return s.mapErr(ctx, err)
	}
	var (
		eventID string
		st      store.DeliveryState
		status  string
	)
	_, err = pgx.ForEachRow(rows, []any{&eventID, &st.ID, &st.Destination, &status, &st.Attempts}, func() error {
		st.Status = store.DeliveryStatus(status)
		add(eventID, st)
		return nil
	})
	return s.mapErr(ctx, err)
}
