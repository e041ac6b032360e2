package sqlstore

import "github.com/hookrelay/hookrelay/internal/store"

// summaryColumns are an event's columns but its body and headers, and
// the body's size, read without loading the body (SQLite reads it from
// the record header, PostgreSQL without detoasting it); a sealed body is
// payloadcrypt.Overhead (28) bytes longer than the body.
const summaryColumns = `e.id, e.source, e.provider_event_id, e.id_origin, e.type, e.content_type,
	e.signature_slot, e.occurred_at, e.received_at,
	octet_length(e.body) - CASE WHEN e.key_id IS NULL THEN 0 ELSE 28 END`

// scanSummary reads one row of summaryColumns, an event with no
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
