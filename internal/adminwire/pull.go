package adminwire

import "time"

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
