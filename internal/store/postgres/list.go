package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
)

// scanSummary reads one row of listColumns (backfillCandidates);
// ListEvents reads its pages in sqlstore.
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
