package delivery

import (
	"fmt"
	"log/slog"
	"strings"
)

// reportDead reports a delivery that went dead, pushed or pulled alike: an
// error log line, the dead-letter metric, when alerts is not nil an alert
// posted to alerts.url, and when watch is not nil its Dead. None of them
// carries the payload.
func reportDead(logger *slog.Logger, m *metrics, alerts *alerter, watch Watcher, a Alert) {
	logger.Error("delivery dead",
		keyDeliveryID, a.DeliveryID, keyEventID, a.EventID, keyDestination, a.Destination,
		keyAttempts, a.Attempts, keyStatusCode, a.LastStatusCode, keyError, a.LastError)
	m.dead.WithLabelValues(a.Destination).Inc()
	if alerts != nil {
		alerts.enqueue(a)
	}
	if watch != nil {
		watch.Dead(a)
	}
}

// AlertKindDeadLetter is the kind of a dead-letter alert.
const AlertKindDeadLetter = "dead_letter"

// Alert is the JSON body posted to alerts.url when a delivery goes dead. It
// identifies the delivery and why it failed; it never carries the payload.
type Alert struct {
	// Kind is always AlertKindDeadLetter; the alerter sets it, with
	// Summary and URL.
	Kind string `json:"kind"`
	// Summary says in one line what went dead, where and after how many
	// attempts.
	Summary string `json:"summary"`
	// URL is the console page of the event, at this delivery; absent
	// without alerts.console_url.
	URL             string `json:"url,omitempty"`
	DeliveryID      int64  `json:"delivery_id"`
	EventID         string `json:"event_id"`
	ProviderEventID string `json:"provider_event_id"`
	Source          string `json:"source"`
	Type            string `json:"type"`
	Destination     string `json:"destination"`
	Attempts        int    `json:"attempts"`
	LastError       string `json:"last_error"`
	LastStatusCode  int    `json:"last_status_code"`
}

// AlertSummary returns a.Summary (see AlertBody).
func (a Alert) AlertSummary() string { return a.Summary }

// AlertLink returns a.URL (see AlertBody).
func (a Alert) AlertLink() string { return a.URL }

// summary says what, where and how many in one line: "billing: delivery 42
// of stripe event evt_1 (invoice.paid) is dead after 8 attempts: status
// 500". A dead letter whose event could not be read names hookrelay's
// event id instead.
func (a Alert) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: delivery %d of ", a.Destination, a.DeliveryID)
	if a.Source != "" && a.ProviderEventID != "" {
		fmt.Fprintf(&b, "%s event %s", a.Source, a.ProviderEventID)
	} else {
		fmt.Fprintf(&b, "event %s", a.EventID)
	}
	if a.Type != "" {
		fmt.Fprintf(&b, " (%s)", a.Type)
	}
	attempts := "attempts"
	if a.Attempts == 1 {
		attempts = "attempt"
	}
	fmt.Fprintf(&b, " is dead after %d %s", a.Attempts, attempts)
	switch {
	case a.LastError != "":
		b.WriteString(": " + a.LastError)
	case a.LastStatusCode != 0:
		fmt.Fprintf(&b, ": status %d", a.LastStatusCode)
	}
	return b.String()
}
