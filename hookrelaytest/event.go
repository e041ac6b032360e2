package hookrelaytest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/bodyfield"
)

// NewEvent returns an event of source and eventType, as a Relay hands it
// to a handler the first time, with body as its JSON body: a []byte, a
// json.RawMessage or a string is taken as it is, anything else is
// marshalled. Its ProviderEventID is the body's top-level "id" when it has
// one, as Stripe's and most providers' bodies do, and a new "evt_…"
// otherwise; its ID is a new hookrelay id, its ReceivedAt now, and its
// Header holds the Content-Type, application/json. Set its fields to
// change them (ev.Header.Set adds a header). NewEvent panics when body
// cannot be marshalled, as httptest.NewRequest panics on a bad request.
func NewEvent(source, eventType string, body any) hookrelay.Event {
	var raw []byte
	switch b := body.(type) {
	case []byte:
		raw = b
	case json.RawMessage:
		raw = b
	case string:
		raw = []byte(b)
	default:
		var err error
		if raw, err = json.Marshal(body); err != nil {
			panic(fmt.Sprintf("hookrelaytest: NewEvent: marshal body: %v", err))
		}
	}
	now := time.Now().UTC()
	id := ulid.Make().String()
	providerID, ok := bodyfield.Lookup(raw, "id")
	if !ok || providerID == "" {
		providerID = "evt_" + id
	}
	return hookrelay.Event{
		ID:              id,
		Source:          source,
		ProviderEventID: providerID,
		Type:            eventType,
		Body:            raw,
		ContentType:     "application/json",
		Header:          http.Header{"Content-Type": {"application/json"}},
		ReceivedAt:      now,
		Attempt:         1,
	}
}
