package relay

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/store"
)

// backlogCollector exports, at each scrape, the deliveries of every
// configured destination by status and the age of its oldest due delivery,
// read from the store (so every process reports the shared truth). Each
// series carries the destination's kind (push, pull, handler): a pull
// destination's backlog waits for its consumer by design, and alerting
// rules tell it from a push destination that is down.
type backlogCollector struct {
	ops          store.Operations
	destinations []backlogDestination
	logger       *slog.Logger

	byStatus  *prometheus.Desc
	oldestAge *prometheus.Desc
}

// backlogDestination is a destination as its backlog series name it.
type backlogDestination struct{ name, kind string }

func newBacklogCollector(ops store.Operations, destinations []backlogDestination, logger *slog.Logger) *backlogCollector {
	return &backlogCollector{
		ops:          ops,
		destinations: destinations,
		logger:       logger,
		byStatus: prometheus.NewDesc("hookrelay_deliveries",
			"Deliveries by destination and status, as stored.", []string{"destination", "kind", "status"}, nil),
		oldestAge: prometheus.NewDesc("hookrelay_delivery_oldest_pending_age_seconds",
			"Age of the destination's oldest due pending or failed delivery; 0 when none is due.", []string{"destination", "kind"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.byStatus
	ch <- c.oldestAge
}

// Collect implements prometheus.Collector. A store that does not answer in
// time yields no backlog series for this scrape rather than a stale one.
func (c *backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stats, err := c.ops.Stats(ctx, time.Now())
	if err != nil {
		c.logger.Warn("collect delivery backlog", "error", err)
		return
	}
	for _, d := range c.destinations {
		ds := stats.Destinations[d.name]
		for _, st := range store.Statuses {
			ch <- prometheus.MustNewConstMetric(c.byStatus, prometheus.GaugeValue, float64(ds.Counts[st]), d.name, d.kind, string(st))
		}
		ch <- prometheus.MustNewConstMetric(c.oldestAge, prometheus.GaugeValue, ds.OldestPendingAge.Seconds(), d.name, d.kind)
	}
}
