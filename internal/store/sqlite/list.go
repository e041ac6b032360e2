package sqlite

import (
	"context"
	"database/sql"

	"github.com/hookrelay/hookrelay/internal/store"
)

// listPage reads the events a query of listColumns selects
// (backfillCandidates); ListEvents reads its pages in sqlstore.
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
