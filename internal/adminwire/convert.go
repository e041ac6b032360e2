package adminwire

import (
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// The conversions of the store's records into their wire form: times in
// UTC, a time that does not apply as null, an event verified by no secret
// with a null slot.

// OptionalTime returns t in UTC, or nil (null on the wire) when it is zero.
func OptionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// slot returns a signature slot, or nil for an event that was not
// verified by a secret.
func slot(n int) *int {
	if n == store.NoSlot {
		return nil
	}
	return &n
}

// EventOf returns a listed event as GET /api/v1/events lists it.
func EventOf(s store.EventSummary) Event {
	ev := s.Event
	out := Event{
		ID:              ev.ID,
		Source:          ev.Source,
		ProviderEventID: ev.ProviderEventID,
		IDOrigin:        string(ev.IDOrigin),
		Type:            ev.Type,
		ContentType:     ev.ContentType,
		ReceivedAt:      ev.ReceivedAt.UTC(),
		OccurredAt:      OptionalTime(ev.OccurredAt),
		SignatureSlot:   slot(ev.SignatureSlot),
		BodySize:        s.BodySize,
		Deliveries:      make([]DeliveryState, len(s.Deliveries)),
	}
	for i, d := range s.Deliveries {
		out.Deliveries[i] = DeliveryState{ID: d.ID, Destination: d.Destination, Status: string(d.Status), Attempts: d.Attempts}
	}
	return out
}

// EventDetailOf returns an event with its deliveries ds as GET
// /api/v1/events/{id} answers it; its headers are {} rather than null when
// it has none. Purged is left for the caller to set.
func EventDetailOf(ev store.Event, ds []Delivery) EventDetail {
	headers := ev.Headers
	if headers == nil {
		headers = map[string][]string{}
	}
	return EventDetail{
		ID:              ev.ID,
		Source:          ev.Source,
		ProviderEventID: ev.ProviderEventID,
		IDOrigin:        string(ev.IDOrigin),
		Type:            ev.Type,
		ContentType:     ev.ContentType,
		ReceivedAt:      ev.ReceivedAt.UTC(),
		OccurredAt:      OptionalTime(ev.OccurredAt),
		SignatureSlot:   slot(ev.SignatureSlot),
		BodySize:        int64(len(ev.Body)),
		Headers:         headers,
		Deliveries:      ds,
	}
}

// DeliveryOf returns a delivery with its attempts, oldest first, in full.
func DeliveryOf(d store.Delivery, attempts []store.Attempt) Delivery {
	out := Delivery{
		ID:             d.ID,
		EventID:        d.EventID,
		Destination:    d.Destination,
		Status:         string(d.Status),
		Attempts:       d.Attempts,
		ReplayCount:    d.ReplayCount,
		OrderingKey:    d.OrderingKey,
		NextAttemptAt:  OptionalTime(d.NextAttemptAt),
		LeaseUntil:     OptionalTime(d.LeaseUntil),
		LastError:      d.LastError,
		LastStatusCode: d.LastStatusCode,
		CreatedAt:      d.CreatedAt.UTC(),
		UpdatedAt:      d.UpdatedAt.UTC(),
		FinishedAt:     OptionalTime(d.FinishedAt),
		AttemptLog:     make([]Attempt, len(attempts)),
	}
	for i, a := range attempts {
		out.AttemptLog[i] = Attempt{
			ID:              a.ID,
			AttemptedAt:     a.AttemptedAt.UTC(),
			DurationMS:      a.Duration.Milliseconds(),
			StatusCode:      a.StatusCode,
			Error:           a.Error,
			ResponseSnippet: a.ResponseSnippet,
			Round:           a.Round,
			RequestHeaders:  a.RequestHeaders,
			ResponseHeaders: a.ResponseHeaders,
			HeadersDropped:  a.HeadersDropped,
		}
	}
	return out
}
