package adminapi

import (
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// timePtr returns t in UTC, or nil when it is zero.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// slotPtr returns a signature slot, or nil for an event that was not
// verified by a secret.
func slotPtr(slot int) *int {
	if slot == store.NoSlot {
		return nil
	}
	return &slot
}

func eventSummary(s store.EventSummary) Event {
	ev := s.Event
	out := Event{
		ID:              ev.ID,
		Source:          ev.Source,
		ProviderEventID: ev.ProviderEventID,
		IDOrigin:        string(ev.IDOrigin),
		Type:            ev.Type,
		ContentType:     ev.ContentType,
		ReceivedAt:      ev.ReceivedAt.UTC(),
		OccurredAt:      timePtr(ev.OccurredAt),
		SignatureSlot:   slotPtr(ev.SignatureSlot),
		BodySize:        s.BodySize,
		Deliveries:      make([]DeliveryState, len(s.Deliveries)),
	}
	for i, d := range s.Deliveries {
		out.Deliveries[i] = DeliveryState{ID: d.ID, Destination: d.Destination, Status: string(d.Status), Attempts: d.Attempts}
	}
	return out
}

func eventDetail(ev store.Event, ds []Delivery) EventDetail {
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
		OccurredAt:      timePtr(ev.OccurredAt),
		SignatureSlot:   slotPtr(ev.SignatureSlot),
		BodySize:        int64(len(ev.Body)),
		Headers:         headers,
		Deliveries:      ds,
	}
}

func deliveryDetail(d store.Delivery, attempts []store.Attempt) Delivery {
	out := Delivery{
		ID:             d.ID,
		Destination:    d.Destination,
		Status:         string(d.Status),
		Attempts:       d.Attempts,
		ReplayCount:    d.ReplayCount,
		OrderingKey:    d.OrderingKey,
		NextAttemptAt:  timePtr(d.NextAttemptAt),
		LeaseUntil:     timePtr(d.LeaseUntil),
		LastError:      d.LastError,
		LastStatusCode: d.LastStatusCode,
		CreatedAt:      d.CreatedAt.UTC(),
		UpdatedAt:      d.UpdatedAt.UTC(),
		FinishedAt:     timePtr(d.FinishedAt),
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
		}
	}
	return out
}
