package sqlstore

import "github.com/hookrelay/hookrelay/internal/store"

// scanSummary reads one row of listColumns, an event with no
// deliveries.
func scanSummary(row Rows) (store.EventSummary, error) {
	var (
		es     store.EventSummary
		origin string
	)
	e := &es.Event
	if err := row.Scan(&e.ID, &e.Source, &e.ProviderEventID, &origin, &e.Type, &e.ContentType,
		&e.SignatureSlot, At(&e.OccurredAt), At(&e.ReceivedAt), &es.BodySize); err != nil {
		return store.EventSummary{}, err
	}
	e.IDOrigin = store.IDOrigin(origin)
	es.Deliveries = []store.DeliveryState{}
	return es, nil
}
