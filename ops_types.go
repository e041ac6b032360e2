package hookrelay

import (
	"net/http"
	"time"
)

// The records the operations methods of Relay read and return: what the
// admin API answers, as Go values. Times are in UTC; a time that does not
// apply is zero.

// DeliveryStatus is the state of one delivery of one event to one
// destination.
type DeliveryStatus string

// Delivery statuses. Pending, processing and failed are live; done,
// skipped, dead and purged are final.
const (
	// StatusPending: due, and not tried since it was created or re-armed.
	StatusPending DeliveryStatus = "pending"
	// StatusProcessing: held by a handler, a push or a pull consumer.
	StatusProcessing DeliveryStatus = "processing"
	// StatusFailed: its last attempt failed; it waits for its next.
	StatusFailed DeliveryStatus = "failed"
	// StatusDone: handled, or accepted by its destination.
	StatusDone DeliveryStatus = "done"
	// StatusSkipped: seen and deliberately not acted on (Skip, or
	// SkipDelivery).
	StatusSkipped DeliveryStatus = "skipped"
	// StatusDead: its attempts ran out, or it failed permanently: a dead
	// letter, which only a replay (RetryDead) sends again.
	StatusDead DeliveryStatus = "dead"
	// StatusPurged: its event's payload was purged; nothing is left to
	// deliver.
	StatusPurged DeliveryStatus = "purged"
)

// EventFilter selects events, as the admin API's listing and replay
// filters do. Zero fields do not filter.
type EventFilter struct {
	// Source is a source name.
	Source string
	// Type is an event-type glob: '*' matches any run of characters, '?'
	// one character.
	Type string
	// Destination and Status select the events with a delivery to that
	// destination, or in that status, or both on the same delivery; a
	// replay re-arms only those deliveries.
	Destination string
	Status      DeliveryStatus
	// Since and Until bound the time an event was received: Since ≤
	// received < Until.
	Since, Until time.Time
}

// EventQuery asks for one page of events, newest first.
type EventQuery struct {
	EventFilter
	// IDPrefix, when set, keeps the events whose hookrelay id or provider
	// event id starts with it.
	IDPrefix string
	// Cursor is the NextCursor of the page before; empty for the first.
	Cursor string
	// Limit is the most events of the page: 50 when zero, at most 1000.
	Limit int
}

// EventPage is one page of events, newest first.
type EventPage struct {
	Events []EventSummary
	// NextCursor asks for the next page; empty on the last.
	NextCursor string
}

// EventInfo is what an event is, as listings and EventDetail show it:
// everything but its body and headers.
type EventInfo struct {
	// ID is hookrelay's id of the event, which Event, replays and the
	// console name.
	ID              string
	Source          string
	ProviderEventID string
	Type            string
	ContentType     string
	ReceivedAt      time.Time
	OccurredAt      time.Time
	// SignatureSlot is the place, in the source's secrets, of the secret
	// that verified the event; -1 when its source verifies nothing.
	SignatureSlot int
	BodySize      int64
}

// EventSummary is one listed event, with the state of each of its
// deliveries.
type EventSummary struct {
	EventInfo
	Deliveries []DeliveryState
}

// DeliveryState is one delivery as listed with its event.
type DeliveryState struct {
	ID          int64
	Destination string
	Status      DeliveryStatus
	Attempts    int
}

// EventDetail is one event with its deliveries and their attempts.
type EventDetail struct {
	EventInfo
	// Header holds the request's headers as stored, those that carry a
	// signature or a token masked.
	Header     http.Header
	Deliveries []Delivery
	// PurgedAt, PurgedBy and PurgeReason tell when, by whom and why the
	// event's payload was purged; PurgedAt is zero when it was not.
	PurgedAt    time.Time
	PurgedBy    string
	PurgeReason string
}

// DeliveryPage is one page of deliveries, those of the events of one
// page of events, newest first.
type DeliveryPage struct {
	Deliveries []DeliverySummary
	// NextCursor asks for the next page; empty on the last.
	NextCursor string
}

// DeliverySummary is one listed delivery, with what its event is.
type DeliverySummary struct {
	DeliveryState
	EventID         string
	Source          string
	ProviderEventID string
	Type            string
	ReceivedAt      time.Time
}

// Delivery is one delivery with its attempts.
type Delivery struct {
	ID          int64
	EventID     string
	Destination string
	Status      DeliveryStatus
	// Attempts counts its tries; ReplayCount how many times it was
	// re-armed by a replay.
	Attempts    int
	ReplayCount int
	OrderingKey string
	// NextAttemptAt is when a live delivery is due; LeaseUntil when the
	// hold of a processing one runs out.
	NextAttemptAt time.Time
	LeaseUntil    time.Time
	// LastError and LastStatusCode are what its last attempt recorded.
	LastError      string
	LastStatusCode int
	CreatedAt      time.Time
	UpdatedAt      time.Time
	FinishedAt     time.Time
	// AttemptLog lists its attempts, oldest first.
	AttemptLog []Attempt
}

// Attempt is one try of one delivery.
type Attempt struct {
	ID          int64
	AttemptedAt time.Time
	Duration    time.Duration
	// StatusCode is a push's response code; 0 when none came, and for a
	// handler.
	StatusCode      int
	Error           string
	ResponseSnippet string
	// Round is the delivery's replay count when the attempt was made.
	Round int
	// RequestHeader and ResponseHeader are the headers of a failed push
	// (its signature cut short); nil otherwise.
	RequestHeader  http.Header
	ResponseHeader http.Header
}

// ReplayRequest selects the deliveries a replay re-arms: those of the
// events EventIDs names, or those the filter selects (one or the other,
// or both); a request that selects everything is refused.
type ReplayRequest struct {
	EventIDs []string
	EventFilter
	// DryRun counts what would be re-armed and changes nothing.
	DryRun bool
}

// ReplayResult counts the deliveries of a replay.
type ReplayResult struct {
	// Matched is how many deliveries the request selects; Rearmed how
	// many were set back to pending (0 on a dry run); InFlight how many
	// were processing, and left alone.
	Matched  int64
	Rearmed  int64
	InFlight int64
	DryRun   bool
}

// BackfillRequest gives Destination the deliveries it lacks for the
// events received in [Since, Until) that it would have received had it
// existed then.
type BackfillRequest struct {
	Destination  string
	Since, Until time.Time
	// DryRun counts what would be created and changes nothing.
	DryRun bool
}

// BackfillResult counts a backfill's deliveries: how many events of the
// window the destination lacks (Matched), and how many deliveries were
// created for them (Created, 0 on a dry run).
type BackfillResult struct {
	Matched int64
	Created int64
	DryRun  bool
}

// JobState is where a job is.
type JobState string

// Job states.
const (
	// JobCounting: the job counts what it will do, for its Total.
	JobCounting JobState = "counting"
	// JobRunning: the job works, batch by batch.
	JobRunning JobState = "running"
	// JobDone: the job did all of it.
	JobDone JobState = "done"
	// JobCancelled: the job was cancelled and stopped between two
	// batches; what it did before stays done.
	JobCancelled JobState = "cancelled"
	// JobFailed: the job stopped on an error, in Error; what it did
	// before stays done.
	JobFailed JobState = "failed"
)

// Job is a replay or a backfill run in the background by the process
// that started it, as StartReplay and StartBackfill start them.
type Job struct {
	ID string
	// Kind is "replay" or "backfill".
	Kind  string
	State JobState
	// Actor is who started it (see WithActor).
	Actor string
	// Total is what the job's count found; Done how much of it the job
	// has walked so far.
	Total int64
	Done  int64
	// LastEventID is the last event the job walked, in id order: every
	// selected delivery of an event up to it, and none after, is done.
	LastEventID string
	// Replay or Backfill is what the job did so far.
	Replay   *ReplayResult
	Backfill *BackfillResult
	// Error says why a failed job stopped.
	Error      string
	StartedAt  time.Time
	FinishedAt time.Time
}

// Finished reports whether the job has ended: done, cancelled or failed.
func (j Job) Finished() bool { return !j.FinishedAt.IsZero() }

// Stats counts every destination's deliveries by status and every
// source's webhooks, zeros included.
type Stats struct {
	Destinations map[string]DestinationStats
	Sources      map[string]SourceStats
}

// DestinationStats counts one destination's deliveries by status.
type DestinationStats struct {
	Pending, Processing, Failed, Done, Skipped, Dead, Purged int64
	// OldestPendingAge is the age of its oldest due delivery, pending or
	// failed; 0 when none is.
	OldestPendingAge time.Duration
	// Paused tells whether it is paused, and since how long.
	Paused    bool
	PausedFor time.Duration
}

// SourceStats counts one source's webhooks: stored, answered as
// duplicates, and rejected.
type SourceStats struct {
	Received, Duplicates, Rejected int64
}
