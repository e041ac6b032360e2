package adminapi

import "time"

// The JSON shapes of the admin API. Times are RFC 3339 in UTC; a time that
// does not apply is null. Fields may be added, never renamed.

// Error is the body of every answer that is not 2xx.
type Error struct {
	Error string `json:"error"`
}

// DeliveryState is one delivery as listed with its event.
type DeliveryState struct {
	ID          int64  `json:"id"`
	Destination string `json:"destination"`
	Status      string `json:"status"`
	Attempts    int    `json:"attempts"`
}

// Event is one listed event: everything but the body and headers.
type Event struct {
	ID              string     `json:"id"`
	Source          string     `json:"source"`
	ProviderEventID string     `json:"provider_event_id"`
	IDOrigin        string     `json:"id_origin"`
	Type            string     `json:"type"`
	ContentType     string     `json:"content_type"`
	ReceivedAt      time.Time  `json:"received_at"`
	OccurredAt      *time.Time `json:"occurred_at"`
	// SignatureSlot is null for a source that verifies nothing.
	SignatureSlot *int            `json:"signature_slot"`
	BodySize      int64           `json:"body_size"`
	Deliveries    []DeliveryState `json:"deliveries"`
}

// EventList is the answer of GET /api/v1/events.
type EventList struct {
	Events []Event `json:"events"`
	// NextCursor is the cursor of the next page; empty on the last page.
	NextCursor string `json:"next_cursor"`
}

// Attempt is one try of one delivery.
type Attempt struct {
	ID              int64     `json:"id"`
	AttemptedAt     time.Time `json:"attempted_at"`
	DurationMS      int64     `json:"duration_ms"`
	StatusCode      int       `json:"status_code"`
	Error           string    `json:"error"`
	ResponseSnippet string    `json:"response_snippet"`
	// Round is the replay round the attempt was made in: 0 before any
	// replay, then the delivery's replay count at the time.
	Round int `json:"round"`
}

// Delivery is one delivery with every field and its attempts.
type Delivery struct {
	ID             int64      `json:"id"`
	Destination    string     `json:"destination"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	ReplayCount    int        `json:"replay_count"`
	OrderingKey    string     `json:"ordering_key"`
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	LeaseUntil     *time.Time `json:"lease_until"`
	LastError      string     `json:"last_error"`
	LastStatusCode int        `json:"last_status_code"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	FinishedAt     *time.Time `json:"finished_at"`
	// AttemptLog lists the delivery's tries, oldest first.
	AttemptLog []Attempt `json:"attempt_log"`
}

// EventDetail is the answer of GET /api/v1/events/{id}.
type EventDetail struct {
	ID              string              `json:"id"`
	Source          string              `json:"source"`
	ProviderEventID string              `json:"provider_event_id"`
	IDOrigin        string              `json:"id_origin"`
	Type            string              `json:"type"`
	ContentType     string              `json:"content_type"`
	ReceivedAt      time.Time           `json:"received_at"`
	OccurredAt      *time.Time          `json:"occurred_at"`
	SignatureSlot   *int                `json:"signature_slot"`
	BodySize        int64               `json:"body_size"`
	Headers         map[string][]string `json:"headers"`
	Deliveries      []Delivery          `json:"deliveries"`
	// Purged is the tombstone of an event whose payload was purged
	// (its body and headers are then empty), or null.
	Purged *Tombstone `json:"purged"`
}

// Verification is the answer of POST /api/v1/events/{id}/verify.
type Verification struct {
	Valid bool `json:"valid"`
	// Slot is the secret slot that matched, or null.
	Slot *int `json:"slot"`
	// SkewSeconds is how long after the signed timestamp the event was
	// received (negative when the timestamp lies ahead); null when the
	// scheme signs no timestamp.
	SkewSeconds *float64 `json:"skew_seconds"`
	// Reason says why the event does not verify, or what is worth knowing
	// about one that does.
	Reason string `json:"reason"`
	// Scheme is the source's scheme as configured now.
	Scheme string `json:"scheme"`
	// SignedAt is the signed timestamp, or null.
	SignedAt *time.Time `json:"signed_at"`
	// ToleranceSeconds is the source's tolerance: reported, not applied.
	ToleranceSeconds float64 `json:"tolerance_seconds"`
	// WithinTolerance tells whether the skew was within the tolerance.
	WithinTolerance bool `json:"within_tolerance"`
}

// Filter selects events, in a replay body. Its fields mean what the query
// parameters of the listing mean.
type Filter struct {
	IDs         []string `json:"ids,omitempty"`
	Source      string   `json:"source,omitempty"`
	Type        string   `json:"type,omitempty"`
	Status      string   `json:"status,omitempty"`
	Destination string   `json:"destination,omitempty"`
	Since       string   `json:"since,omitempty"`
	Until       string   `json:"until,omitempty"`
}

// ReplayRequest is the body of POST /api/v1/replay.
type ReplayRequest struct {
	Filter
	DryRun bool `json:"dry_run"`
}

// ReplayResult is the answer of POST /api/v1/replay. It counts delivery
// rows.
type ReplayResult struct {
	Matched  int64 `json:"matched"`
	Rearmed  int64 `json:"rearmed"`
	InFlight int64 `json:"in_flight"`
	DryRun   bool  `json:"dry_run"`
}

// BackfillRequest is the body of POST /api/v1/backfill.
type BackfillRequest struct {
	Destination string `json:"destination"`
	Since       string `json:"since"`
	Until       string `json:"until"`
	DryRun      bool   `json:"dry_run"`
}

// BackfillResult is the answer of POST /api/v1/backfill: how many events
// of the window the destination would have received and lack, and how many
// delivery rows were created for them (0 on a dry run).
type BackfillResult struct {
	Matched int64 `json:"matched"`
	Created int64 `json:"created"`
	DryRun  bool  `json:"dry_run"`
}

// ClaimedDelivery is one delivery handed to a pull consumer.
type ClaimedDelivery struct {
	ID              int64  `json:"id"`
	EventID         string `json:"event_id"`
	Source          string `json:"source"`
	Type            string `json:"type"`
	ProviderEventID string `json:"provider_event_id"`
	Attempt         int    `json:"attempt"`
	// Headers are exactly those a push destination would receive, signed
	// with the destination's secret; a header with several values has them
	// joined with ", ".
	Headers    map[string]string `json:"headers"`
	BodyBase64 string            `json:"body_base64"`
	// LeaseToken must be sent back with the ack.
	LeaseToken string `json:"lease_token"`
}

// Claimed is the answer of POST /api/v1/destinations/{name}/claim.
type Claimed struct {
	Deliveries   []ClaimedDelivery `json:"deliveries"`
	LeaseSeconds int               `json:"lease_seconds"`
}

// Ack outcomes. OutcomeReleased hands the delivery back unattempted, due
// now, as a consumer that stops does with what it still holds.
const (
	OutcomeDone     = "done"
	OutcomeFailed   = "failed"
	OutcomeSkipped  = "skipped"
	OutcomeReleased = "released"
)

// AckRequest is the body of POST /api/v1/deliveries/{id}/ack.
type AckRequest struct {
	// Outcome is done, failed, skipped or released.
	Outcome string `json:"outcome"`
	// Error describes a failure.
	Error string `json:"error,omitempty"`
	// LeaseToken is the one the claim handed out.
	LeaseToken string `json:"lease_token"`
	// StatusCode is the consumer's local response code, when it has one.
	StatusCode int `json:"status_code,omitempty"`
	// ResponseSnippet is the start of the local response's body, kept
	// with the attempt (at most 1 KiB).
	ResponseSnippet string `json:"response_snippet,omitempty"`
}

// AckResult is the answer of an ack: the delivery's new status, and when a
// failed one is due again.
type AckResult struct {
	Status        string     `json:"status"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
}

// DestinationStats counts one destination's deliveries by status.
type DestinationStats struct {
	Pending    int64 `json:"pending"`
	Processing int64 `json:"processing"`
	Failed     int64 `json:"failed"`
	Done       int64 `json:"done"`
	Skipped    int64 `json:"skipped"`
	Dead       int64 `json:"dead"`
	// Purged counts the deliveries ended because their event's payload
	// was purged.
	Purged                  int64   `json:"purged"`
	OldestPendingAgeSeconds float64 `json:"oldest_pending_age_seconds"`
}

// SourceStats counts one source's ingest outcomes.
type SourceStats struct {
	Received   int64 `json:"received"`
	Duplicates int64 `json:"duplicates"`
	Rejected   int64 `json:"rejected"`
	// ProviderLagSeconds and ProviderLagMaxSeconds are the median and the
	// largest receive time minus provider time over the source's newest
	// events; null when its scheme gives no provider time.
	ProviderLagSeconds    *float64 `json:"provider_lag_seconds"`
	ProviderLagMaxSeconds *float64 `json:"provider_lag_max_seconds"`
}

// Stats is the answer of GET /api/v1/stats.
type Stats struct {
	Destinations map[string]DestinationStats `json:"destinations"`
	Sources      map[string]SourceStats      `json:"sources"`
	// Paused holds the paused destinations (hookrelay destinations pause),
	// apart from Destinations so that every field there stays a number;
	// empty when none is.
	Paused map[string]PausedStats `json:"paused"`
}

// PausedStats tells how long a destination has been paused.
type PausedStats struct {
	PausedForSeconds float64 `json:"paused_for_seconds"`
}

// PurgeRequest is the body of POST /api/v1/purge. It names one selector:
// ids; a source's provider event id (source and provider_event_id); or a
// value at a JSON path of the body (path and value), across the events of
// source, since and until when set. Reason is required.
type PurgeRequest struct {
	IDs             []string `json:"ids,omitempty"`
	Source          string   `json:"source,omitempty"`
	ProviderEventID string   `json:"provider_event_id,omitempty"`
	Path            string   `json:"path,omitempty"`
	// Value is compared with the scalar at Path as text: a string's
	// decoded value, a number's literal, true or false.
	Value  string `json:"value,omitempty"`
	Since  string `json:"since,omitempty"`
	Until  string `json:"until,omitempty"`
	Reason string `json:"reason"`
	DryRun bool   `json:"dry_run"`
}

// PurgeResult is the answer of POST /api/v1/purge. It counts events.
type PurgeResult struct {
	// Matched is how many events the selector selects that were not
	// purged before; Purged how many were purged (0 on a dry run).
	Matched int64 `json:"matched"`
	Purged  int64 `json:"purged"`
	// AlreadyPurged counts the events named by id that were purged
	// before: nothing is done to them.
	AlreadyPurged int64 `json:"already_purged"`
	// DeliveriesEnded counts the pending, failed or processing
	// deliveries of the purged events, now purged.
	DeliveriesEnded int64 `json:"deliveries_ended"`
	// Scanned counts the bodies a path selector read.
	Scanned int64 `json:"scanned"`
	DryRun  bool  `json:"dry_run"`
	// FollowUpSQL is the statement an operator runs on the database for
	// the purged bytes to leave its files, when the purge could not
	// remove them itself (PostgreSQL always; SQLite when readers kept
	// its write-ahead log in use). Empty: they are gone already.
	FollowUpSQL string `json:"follow_up_sql,omitempty"`
}

// Tombstone tells when an event's payload was purged, by whom and why.
type Tombstone struct {
	PurgedAt time.Time `json:"purged_at"`
	PurgedBy string    `json:"purged_by"`
	Reason   string    `json:"reason"`
}
