package store

import (
	"context"
	"time"
)

// NodeGone is how long after its last report a node no longer counts: it
// stopped, or died. Nodes report themselves every few seconds.
const NodeGone = 30 * time.Second

// Node is one relay process of a fleet — the processes on one database —
// as it last reported itself.
type Node struct {
	// ID names the process: its host, its pid and a random part.
	ID string
	// Version is the hookrelay version it runs.
	Version string
	// ConfigFingerprint identifies the configuration it runs (see
	// config.Config.Fingerprint): nodes that disagree run different ones.
	ConfigFingerprint string
	StartedAt         time.Time
	SeenAt            time.Time
}

// DistinctFingerprints counts the configurations nodes run: above 1,
// they disagree.
func DistinctFingerprints(nodes []Node) int {
	seen := map[string]bool{}
	for _, n := range nodes {
		seen[n.ConfigFingerprint] = true
	}
	return len(seen)
}

// Fleet is what the relay processes of one database tell each other.
type Fleet interface {
	// RecordNode writes n, in place of its earlier report.
	RecordNode(ctx context.Context, n Node) error
	// Nodes returns the nodes seen at or after since, by id, and deletes
	// those seen before forget (a zero forget deletes none).
	Nodes(ctx context.Context, since, forget time.Time) ([]Node, error)
	// AnnounceReload tells the processes listening with ListenReloads
	// that the node from reloaded its configuration.
	AnnounceReload(ctx context.Context, from string) error
	// ListenReloads delivers the id of each node that announces a reload,
	// this process's own included, until ctx is done; on a driver without
	// notifications between processes (SQLite: one process owns the
	// file) it delivers nothing.
	ListenReloads(ctx context.Context) (<-chan string, error)
}
