package adminwire

import (
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// FailureGroup is the deliveries of one destination, all failed or all
// dead, whose last attempts failed the same way.
type FailureGroup struct {
	Destination string `json:"destination"`
	// Status is failed (tried again on the destination's backoff) or
	// dead (attempts run out: only a replay sends it again).
	Status string `json:"status"`
	// Kind is 5xx, 4xx, 3xx, timeout, dns, tls, refused, connection,
	// signature, handler or other.
	Kind  string `json:"kind"`
	Count int64  `json:"count"`
	// FirstSeen and LastSeen are the earliest and the latest last attempt
	// of the group (for a dead delivery, when it went dead).
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	// ReceivedSince and ReceivedUntil bound the receive times of the
	// group's events: a replay filter with the destination, the status
	// and this window (since ≤ received_at < until) selects the group,
	// and whatever else of that destination failed so in the window.
	ReceivedSince *time.Time `json:"received_since"`
	ReceivedUntil *time.Time `json:"received_until"`
	// ExampleEventID is the group's newest event, ExampleError and
	// ExampleStatusCode what its delivery's last attempt recorded (0
	// when no response came); the id is empty when that delivery changed
	// as the group was read.
	ExampleEventID    string `json:"example_event_id"`
	ExampleError      string `json:"example_error"`
	ExampleStatusCode int    `json:"example_status_code"`
}

// Failures is the answer of GET /api/v1/failures, the groups last seen
// latest first.
type Failures struct {
	Groups []FailureGroup `json:"groups"`
}

// FailureGroupOf returns a group of failures in its wire form, with the
// kind the caller settled on.
func FailureGroupOf(g store.FailureGroup, kind string) FailureGroup {
	return FailureGroup{
		Destination: g.Destination, Status: string(g.Status), Kind: kind, Count: g.Count,
		FirstSeen: g.FirstSeen.UTC(), LastSeen: g.LastSeen.UTC(),
		ReceivedSince: OptionalTime(g.ReceivedSince), ReceivedUntil: OptionalTime(g.ReceivedUntil),
		ExampleEventID: g.ExampleEventID, ExampleError: g.ExampleError, ExampleStatusCode: g.ExampleStatusCode,
	}
}
