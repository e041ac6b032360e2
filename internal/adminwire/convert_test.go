package adminwire_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

// TestConvert pins the wire form of the store's records: times in UTC,
// a time that does not apply and an unverified event's slot as null,
// headers as {} rather than null.
func TestConvert(t *testing.T) {
	t.Parallel()
	paris := time.FixedZone("CEST", 2*3600)
	at := time.Date(2024, 5, 6, 9, 8, 9, 0, paris)
	ev := store.Event{
		ID: "ev_1", Source: "stripe", ProviderEventID: "evt_1", IDOrigin: store.IDFromBody, Type: "invoice.paid",
		Body: []byte(`{"a":1}`), ContentType: "application/json", SignatureSlot: store.NoSlot, ReceivedAt: at,
	}
	d := store.Delivery{ID: 3, EventID: "ev_1", Destination: "billing", Status: store.StatusDone, Attempts: 1, CreatedAt: at, UpdatedAt: at, FinishedAt: at}
	attempt := store.Attempt{ID: 4, AttemptedAt: at, Duration: 1500 * time.Millisecond, StatusCode: 200, Round: 1}
	slotted := ev
	slotted.SignatureSlot = 1
	slotted.OccurredAt = at
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"zero time", adminwire.OptionalTime(time.Time{}), `null`},
		{"time", adminwire.OptionalTime(at), `"2024-05-06T07:08:09Z"`},
		{"listed event", adminwire.EventOf(store.EventSummary{Event: slotted, BodySize: 7,
			Deliveries: []store.DeliveryState{{ID: 3, Destination: "billing", Status: store.StatusPending}}}),
			`{"id":"ev_1","source":"stripe","provider_event_id":"evt_1","id_origin":"body","type":"invoice.paid",` +
				`"content_type":"application/json","received_at":"2024-05-06T07:08:09Z","occurred_at":"2024-05-06T07:08:09Z",` +
				`"signature_slot":1,"body_size":7,"deliveries":[{"id":3,"destination":"billing","status":"pending","attempts":0}]}`},
		{"event detail", adminwire.EventDetailOf(ev, []adminwire.Delivery{}),
			`{"id":"ev_1","source":"stripe","provider_event_id":"evt_1","id_origin":"body","type":"invoice.paid",` +
				`"content_type":"application/json","received_at":"2024-05-06T07:08:09Z","occurred_at":null,` +
				`"signature_slot":null,"body_size":7,"headers":{},"deliveries":[],"purged":null}`},
		{"delivery", adminwire.DeliveryOf(d, []store.Attempt{attempt}),
			`{"id":3,"event_id":"ev_1","destination":"billing","status":"done","attempts":1,"replay_count":0,"ordering_key":"",` +
				`"next_attempt_at":null,"lease_until":null,"last_error":"","last_status_code":0,` +
				`"created_at":"2024-05-06T07:08:09Z","updated_at":"2024-05-06T07:08:09Z","finished_at":"2024-05-06T07:08:09Z",` +
				`"attempt_log":[{"id":4,"attempted_at":"2024-05-06T07:08:09Z","duration_ms":1500,"status_code":200,` +
				`"error":"","response_snippet":"","round":1,"request_headers":null,"response_headers":null,"headers_dropped":0}]}`},
		{"attempt with headers", adminwire.DeliveryOf(d, []store.Attempt{{AttemptedAt: at, StatusCode: 503,
			RequestHeaders: map[string][]string{"Webhook-Id": {"ev_1"}}, ResponseHeaders: map[string][]string{"Retry-After": {"30"}},
			HeadersDropped: 2}}).AttemptLog,
			`[{"id":0,"attempted_at":"2024-05-06T07:08:09Z","duration_ms":0,"status_code":503,"error":"","response_snippet":"",` +
				`"round":0,"request_headers":{"Webhook-Id":["ev_1"]},"response_headers":{"Retry-After":["30"]},"headers_dropped":2}]`},
		{"delivery without attempts", adminwire.DeliveryOf(store.Delivery{}, nil).AttemptLog, `[]`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(b) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, b, c.want)
		}
	}
}
