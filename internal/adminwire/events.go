package adminwire

import "time"

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
	// TextSearch is what a search by text read for this page; absent
	// otherwise.
	TextSearch *TextSearch `json:"text_search,omitempty"`
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
	// RequestHeaders are the headers hookrelay sent, the signature cut to
	// its first characters, and ResponseHeaders those the destination
	// answered with: kept for a failed push attempt only, at most 50
	// values and 8 KiB a side; null when none were kept. HeadersDropped
	// counts the values left out to fit.
	RequestHeaders  map[string][]string `json:"request_headers"`
	ResponseHeaders map[string][]string `json:"response_headers"`
	HeadersDropped  int                 `json:"headers_dropped"`
}

// Delivery is one delivery with every field and its attempts.
type Delivery struct {
	ID             int64      `json:"id"`
	EventID        string     `json:"event_id"`
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

// Tombstone tells when an event's payload was purged, by whom and why.
type Tombstone struct {
	PurgedAt time.Time `json:"purged_at"`
	PurgedBy string    `json:"purged_by"`
	Reason   string    `json:"reason"`
}
