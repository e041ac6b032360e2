package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// printedEvent is one line of `listen --print-json`: the event as a
// destination receives it. Body is the raw body when it is JSON, so that
// the line stays readable; BodyBase64 always holds the exact bytes.
type printedEvent struct {
	EventID         string            `json:"event_id"`
	Source          string            `json:"source"`
	Type            string            `json:"type"`
	ProviderEventID string            `json:"provider_event_id"`
	Headers         map[string]string `json:"headers"`
	Body            json.RawMessage   `json:"body,omitempty"`
	BodyBase64      string            `json:"body_base64"`
}

// print writes a claimed delivery as one JSON line on standard output; it
// is then acknowledged done, as a local server answering 200 would have.
func (l *listener) print(d adminwire.ClaimedDelivery, body []byte) forwarded {
	start := time.Now()
	p := printedEvent{EventID: d.EventID, Source: d.Source, Type: d.Type, ProviderEventID: d.ProviderEventID, Headers: d.Headers, BodyBase64: d.BodyBase64}
	if json.Valid(body) {
		p.Body = body
	}
	line, err := json.Marshal(p)
	if err == nil {
		_, err = fmt.Fprintf(l.out, "%s\n", line)
	}
	if err != nil {
		return forwarded{outcome: adminwire.OutcomeFailed, err: fmt.Sprintf("print: %v", err), duration: time.Since(start)}
	}
	return forwarded{outcome: adminwire.OutcomeDone, duration: time.Since(start)}
}
