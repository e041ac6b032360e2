package hookrelay

import (
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// The conversions between the operations' Go values and the admin API's
// records, which the service under both speaks.

// wireFilter returns f as the admin API's filter, its times in RFC 3339
// (the zero time is no bound).
func wireFilter(f EventFilter, ids []string) adminwire.Filter {
	return adminwire.Filter{
		IDs: ids, Source: f.Source, Type: f.Type, Status: string(f.Status), Destination: f.Destination,
		Since: wireTime(f.Since), Until: wireTime(f.Until),
	}
}

// wireTime returns t in RFC 3339 with its fractions, or "" for the zero
// time.
func wireTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// timeOf returns *t, or the zero time for nil.
func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// seconds returns s seconds as a duration.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// infoOf returns what the admin API says of an event as an EventInfo.
func infoOf(id, source, providerID, typ, contentType string, received time.Time, occurred *time.Time, slot *int, size int64) EventInfo {
	out := EventInfo{
		ID: id, Source: source, ProviderEventID: providerID, Type: typ, ContentType: contentType,
		ReceivedAt: received, OccurredAt: timeOf(occurred), SignatureSlot: -1, BodySize: size,
	}
	if slot != nil {
		out.SignatureSlot = *slot
	}
	return out
}

func eventPageOf(l adminwire.EventList) EventPage {
	out := EventPage{Events: make([]EventSummary, len(l.Events)), NextCursor: l.NextCursor}
	for i, e := range l.Events {
		s := EventSummary{
			EventInfo:  infoOf(e.ID, e.Source, e.ProviderEventID, e.Type, e.ContentType, e.ReceivedAt, e.OccurredAt, e.SignatureSlot, e.BodySize),
			Deliveries: make([]DeliveryState, len(e.Deliveries)),
		}
		for j, d := range e.Deliveries {
			s.Deliveries[j] = DeliveryState{ID: d.ID, Destination: d.Destination, Status: DeliveryStatus(d.Status), Attempts: d.Attempts}
		}
		out.Events[i] = s
	}
	return out
}

// deliveryPageOf returns the deliveries of page's events that f's
// destination and status select, each with its event.
func deliveryPageOf(page EventPage, f EventFilter) DeliveryPage {
	out := DeliveryPage{Deliveries: []DeliverySummary{}, NextCursor: page.NextCursor}
	for _, e := range page.Events {
		for _, d := range e.Deliveries {
			if f.Destination != "" && d.Destination != f.Destination || f.Status != "" && d.Status != f.Status {
				continue
			}
			out.Deliveries = append(out.Deliveries, DeliverySummary{
				DeliveryState: d, EventID: e.ID, Source: e.Source, ProviderEventID: e.ProviderEventID, Type: e.Type, ReceivedAt: e.ReceivedAt,
			})
		}
	}
	return out
}

func eventDetailOf(e adminwire.EventDetail) EventDetail {
	out := EventDetail{
		EventInfo:  infoOf(e.ID, e.Source, e.ProviderEventID, e.Type, e.ContentType, e.ReceivedAt, e.OccurredAt, e.SignatureSlot, e.BodySize),
		Header:     http.Header(e.Headers),
		Deliveries: make([]Delivery, len(e.Deliveries)),
	}
	for i, d := range e.Deliveries {
		out.Deliveries[i] = deliveryOf(d)
	}
	if p := e.Purged; p != nil {
		out.PurgedAt, out.PurgedBy, out.PurgeReason = p.PurgedAt, p.PurgedBy, p.Reason
	}
	return out
}

func deliveryOf(d adminwire.Delivery) Delivery {
	out := Delivery{
		ID: d.ID, EventID: d.EventID, Destination: d.Destination, Status: DeliveryStatus(d.Status),
		Attempts: d.Attempts, ReplayCount: d.ReplayCount, OrderingKey: d.OrderingKey,
		NextAttemptAt: timeOf(d.NextAttemptAt), LeaseUntil: timeOf(d.LeaseUntil),
		LastError: d.LastError, LastStatusCode: d.LastStatusCode,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, FinishedAt: timeOf(d.FinishedAt),
		AttemptLog: make([]Attempt, len(d.AttemptLog)),
	}
	for i, a := range d.AttemptLog {
		out.AttemptLog[i] = Attempt{
			ID: a.ID, AttemptedAt: a.AttemptedAt, Duration: time.Duration(a.DurationMS) * time.Millisecond,
			StatusCode: a.StatusCode, Error: a.Error, ResponseSnippet: a.ResponseSnippet, Round: a.Round,
			RequestHeader: http.Header(a.RequestHeaders), ResponseHeader: http.Header(a.ResponseHeaders),
		}
	}
	return out
}

func replayResultOf(r adminwire.ReplayResult) ReplayResult {
	return ReplayResult{Matched: r.Matched, Rearmed: r.Rearmed, InFlight: r.InFlight, DryRun: r.DryRun}
}

func backfillResultOf(r adminwire.BackfillResult) BackfillResult {
	return BackfillResult{Matched: r.Matched, Created: r.Created, DryRun: r.DryRun}
}

func jobOf(j adminwire.Job) Job {
	out := Job{
		ID: j.ID, Kind: j.Kind, State: JobState(j.State), Actor: j.Actor, Total: j.Total, Done: j.Done,
		LastEventID: j.LastEventID, Error: j.Error, StartedAt: j.StartedAt, FinishedAt: timeOf(j.FinishedAt),
	}
	if j.Replay != nil {
		r := replayResultOf(*j.Replay)
		out.Replay = &r
	}
	if j.Backfill != nil {
		b := backfillResultOf(*j.Backfill)
		out.Backfill = &b
	}
	return out
}

func statsOf(s adminwire.Stats) Stats {
	out := Stats{Destinations: map[string]DestinationStats{}, Sources: map[string]SourceStats{}}
	for name, d := range s.Destinations {
		out.Destinations[name] = DestinationStats{
			Pending: d.Pending, Processing: d.Processing, Failed: d.Failed, Done: d.Done, Skipped: d.Skipped, Dead: d.Dead, Purged: d.Purged,
			OldestPendingAge: seconds(d.OldestPendingAgeSeconds),
		}
	}
	for name, p := range s.Paused {
		d := out.Destinations[name]
		d.Paused, d.PausedFor = true, seconds(p.PausedForSeconds)
		out.Destinations[name] = d
	}
	for name, src := range s.Sources {
		out.Sources[name] = SourceStats{Received: src.Received, Duplicates: src.Duplicates, Rejected: src.Rejected}
	}
	return out
}
