package adminwire

import "time"

// The JSON shapes of the operator routes: the rejection record, the audit
// log, and destinations with their pause and skip.

// Rejection is one request that failed verification. It never holds the
// body.
type Rejection struct {
	At         time.Time `json:"at"`
	Source     string    `json:"source"`
	Reason     string    `json:"reason"`
	RemoteAddr string    `json:"remote_addr"`
	BodySize   int64     `json:"body_size"`
	// SkewSeconds is the signed timestamp's distance from the receive
	// time, or null when the request carried none that could be read.
	SkewSeconds *float64 `json:"skew_seconds"`
}

// Rejections is the answer of GET /api/v1/rejections, newest first.
type Rejections struct {
	Rejections []Rejection `json:"rejections"`
}

// AuditEntry is one row of the audit log.
type AuditEntry struct {
	ID    int64     `json:"id"`
	At    time.Time `json:"at"`
	Actor string    `json:"actor"`
	// Kind is replay, backfill, purge, pause, resume, skip or
	// job_takeover (Actor is then the node that took the job over).
	Kind string `json:"kind"`
	// Detail is what the action selected: a replay's filter, a backfill's
	// destination and window, a purge's selector (a value's keyed hash,
	// never the value) and reason, a destination, a delivery; for a
	// job_takeover, job_id, job_kind, from_node (the node that stopped
	// renewing the job's lease) and to_node.
	Detail   map[string]any `json:"detail"`
	Matched  int64          `json:"matched"`
	Rearmed  int64          `json:"rearmed"`
	InFlight int64          `json:"in_flight"`
	Created  int64          `json:"created"`
	// Purged counts the events a purge purged; Matched those it selected.
	Purged int64 `json:"purged"`
	DryRun bool  `json:"dry_run"`
}

// AuditLog is the answer of GET /api/v1/audit, newest first.
type AuditLog struct {
	Entries []AuditEntry `json:"entries"`
}

// Destination is one configured destination with its backlog.
type Destination struct {
	Name string `json:"name"`
	// Kind is push or pull.
	Kind string `json:"kind"`
	// URL is a push destination's URL without credentials or query; empty
	// for a pull destination.
	URL string `json:"url"`
	// Backlog counts its live deliveries: pending, failed and processing.
	Backlog                 int64   `json:"backlog"`
	OldestPendingAgeSeconds float64 `json:"oldest_pending_age_seconds"`
	Dead                    int64   `json:"dead"`
	// LastError is the error of its most recently failed delivery, or
	// empty.
	LastError   string     `json:"last_error"`
	LastErrorAt *time.Time `json:"last_error_at"`
	// Paused tells whether its deliveries wait; PausedAt since when.
	Paused   bool       `json:"paused"`
	PausedAt *time.Time `json:"paused_at"`
}

// Destinations is the answer of GET /api/v1/destinations, in config order.
type Destinations struct {
	Destinations []Destination `json:"destinations"`
}

// PauseResult is the answer of a pause or a resume.
type PauseResult struct {
	Destination string `json:"destination"`
	Paused      bool   `json:"paused"`
}
