package adminwire

import "time"

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
	// Runner is the fleet's runner: the one process of those sharing the
	// database that runs retention and evaluates the signature-failure
	// rule; null while none holds its lease (a runner died and its lease
	// has not yet run out).
	Runner *RunnerStats `json:"runner"`
}

// RunnerStats names the fleet's runner.
type RunnerStats struct {
	// Node is the runner's name: host, pid and a random suffix.
	Node string `json:"node"`
	// ForSeconds is how long it has been the runner.
	ForSeconds float64 `json:"for_seconds"`
}

// Nodes is the answer of GET /api/v1/nodes: the relay processes on this
// database that reported themselves lately, by id — one for SQLite, each
// node of a fleet on PostgreSQL. ConfigDrift is true when they do not all
// run the same configuration (a reload or a deploy not yet everywhere).
type Nodes struct {
	Nodes       []NodeStats `json:"nodes"`
	ConfigDrift bool        `json:"config_drift"`
}

// NodeStats is one relay process of Nodes.
type NodeStats struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	// ConfigFingerprint identifies the configuration it runs: a digest
	// of everything the nodes of a fleet must agree on, secrets
	// included, that reveals none.
	ConfigFingerprint string    `json:"config_fingerprint"`
	StartedAt         time.Time `json:"started_at"`
	SeenAt            time.Time `json:"seen_at"`
}

// PausedStats tells how long a destination has been paused.
type PausedStats struct {
	PausedForSeconds float64 `json:"paused_for_seconds"`
}
