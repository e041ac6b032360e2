package relay

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/store"
)

// The fleet's reports (see store.Fleet).
const (
	// fleetReport is how often a node reports itself: a third of
	// store.NodeGone.
	fleetReport = store.NodeGone / 3
	// fleetForget is how long the report of a node gone is kept.
	fleetForget = 24 * time.Hour
)

// fleetNode is this process as a node of the fleet on its database: it
// reports which version and configuration it runs, and reloads when
// another node announces a reload.
type fleetNode struct {
	r       *Relay
	id      string
	started time.Time

	nodes        prometheus.Gauge // nodes seen lately
	fingerprints prometheus.Gauge // distinct configurations among them

	mu   sync.Mutex // serializes reports
	stop func()
}

// newFleetNode returns this process's node, its metrics registered.
func newFleetNode(r *Relay) *fleetNode {
	n := &fleetNode{
		r: r, id: r.node, started: time.Now().UTC(),
		nodes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "hookrelay_fleet_nodes",
			Help: "Relay processes on this database that reported themselves lately, this one included (read from the database: the same on every node).",
		}),
		fingerprints: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "hookrelay_fleet_config_fingerprints",
			Help: "Distinct configurations the nodes of hookrelay_fleet_nodes run: above 1, nodes disagree (a reload or a deploy not yet everywhere).",
		}),
	}
	r.registry.MustRegister(n.nodes, n.fingerprints)
	return n
}

// buildVersion is the version this binary was built as: its module
// version, or its commit.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return s.Value[:12]
		}
	}
	return "dev"
}

// start reports the node now and every fleetReport, and reloads this
// relay when another node announces a reload, until the returned stop is
// called.
func (n *fleetNode) start(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	n.stop = func() {
		cancel()
		wg.Wait()
	}
	n.report(ctx)
	wg.Go(func() {
		t := time.NewTicker(fleetReport)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				n.report(ctx)
			}
		}
	})
	reloads, err := n.r.store.ListenReloads(ctx)
	if err != nil {
		n.r.logger.Warn("fleet: not listening for reloads of other nodes", "error", err)
		return
	}
	wg.Go(func() {
		for from := range reloads {
			if from == n.id {
				continue
			}
			n.followReload(ctx, from)
		}
	})
}

// followReload reloads this relay's configuration because node from
// reloaded its own ("" when the announcement may have been missed).
func (n *fleetNode) followReload(ctx context.Context, from string) {
	if _, err := n.r.reloadConfig(ctx); errors.Is(err, ErrNoReload) {
		return // an application's relay: its config is its code's
	} else if errors.Is(err, ErrShuttingDown) {
		return // this relay is stopping: its config no longer matters
	} else if err != nil {
		n.r.logger.Warn("fleet: reload announced by another node failed here; the running config stays",
			"from", from, "error", err)
		return
	}
	n.r.logger.Info("fleet: config reloaded as another node announced", "from", from, "node", n.id)
	n.report(ctx)
}

// reloaded reports the node after a reload of its own, and tells the
// other nodes to reload too.
func (n *fleetNode) reloaded(ctx context.Context) {
	n.report(ctx)
	if err := n.r.store.AnnounceReload(ctx, n.id); err != nil {
		n.r.logger.Warn("fleet: could not announce the reload to the other nodes", "error", err)
	}
}

// report writes the node's report and reads the fleet's into the gauges.
func (n *fleetNode) report(ctx context.Context) {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := time.Now().UTC()
	me := store.Node{
		ID: n.id, Version: buildVersion(), ConfigFingerprint: n.r.configFingerprint(),
		StartedAt: n.started, SeenAt: now,
	}
	if err := n.r.store.RecordNode(ctx, me); err != nil {
		if ctx.Err() == nil {
			n.r.logger.Warn("fleet: report failed", "error", err)
		}
		return
	}
	nodes, err := n.r.store.Nodes(ctx, now.Add(-store.NodeGone), now.Add(-fleetForget))
	if err != nil {
		if ctx.Err() == nil {
			n.r.logger.Warn("fleet: reading the other nodes failed", "error", err)
		}
		return
	}
	n.nodes.Set(float64(len(nodes)))
	n.fingerprints.Set(float64(store.DistinctFingerprints(nodes)))
}
