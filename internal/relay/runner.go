package relay

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/console/link"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/fleet"
	"github.com/hookrelay/hookrelay/internal/receiver"
	"github.com/hookrelay/hookrelay/internal/retention"
	"github.com/hookrelay/hookrelay/internal/store"
)

// fleetRun is this process's part in the fleet's runner: the election, and
// the alerter of the rules the runner evaluates.
type fleetRun struct {
	runner  *fleet.Runner
	alerter *delivery.Alerter // nil without signature-failure alerts
}

// registerRunner exports hookrelay_signature_alerts_total, the retention
// passes this process ran and the events they deleted, and
// hookrelay_fleet_runner, which reads whether this process is the fleet's
// runner now: 0 before Start and after Shutdown.
func (r *Relay) registerRunner() {
	r.retentionPasses = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hookrelay_retention_passes_total",
		Help: "Retention passes this process ran as the fleet's runner, by outcome (ok, failed).",
	}, []string{"outcome"})
	r.retentionDeleted = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hookrelay_retention_deleted_events_total",
		Help: "Events this process's retention passes deleted.",
	})
	r.registry.MustRegister(r.retentionPasses, r.retentionDeleted)
	r.signatureAlerts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hookrelay_signature_alerts_total",
		Help: "Signature-failure alerts raised, by source and outcome (sent, failed, dropped).",
	}, []string{"source", "outcome"})
	r.registry.MustRegister(r.signatureAlerts)
	r.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "hookrelay_fleet_runner",
		Help: "1 while this process is the fleet's runner, which runs retention and evaluates the signature-failure rule; 0 while another process is.",
	}, func() float64 {
		if run := r.fleet.Load(); run != nil && run.runner.Leading() {
			return 1
		}
		return 0
	}))
}

// startRunner takes part, under this process's node name, in the election
// of the fleet's runner among the processes sharing the database, whatever
// their role; while this process is the runner it prunes past the
// retention and evaluates the signature-failure rule. On SQLite it is
// the only process, and runs them through the same election.
func (r *Relay) startRunner() error {
	run := &fleetRun{}
	tasks := []func(context.Context){r.pruner().Run}
	f := r.cfg.Alerts.SignatureFailures
	if f.Threshold() > 0 && r.cfg.Alerts.URL != "" {
		alerter, err := delivery.StartAlerter(context.Background(), r.cfg.Alerts, r.logger)
		if err != nil {
			return fmt.Errorf("start signature-failure alerts: %w", err)
		}
		run.alerter = alerter
		rule := r.signatureRule(alerter)
		tasks = append(tasks, rule.Run)
	}
	run.runner = fleet.Start(fleet.Options{
		Leases: r.store,
		Node:   r.node,
		TTL:    time.Duration(r.cfg.Fleet.RunnerLease),
		Tasks:  tasks,
		Logger: r.logger,
	})
	r.fleet.Store(run)
	return nil
}

// stopRunner stops the runner's tasks, releases its lease so that another
// process takes over at once, and posts the alerts still queued.
func (r *Relay) stopRunner() {
	run := r.fleet.Load()
	if run == nil {
		return
	}
	run.runner.Stop()
	if run.alerter != nil {
		run.alerter.Stop()
	}
}

// pruner returns the pruner that deletes finished events past the
// configured retention.
func (r *Relay) pruner() *retention.Pruner {
	return retention.New(retention.Options{
		Store:      r.store,
		Done:       time.Duration(r.cfg.Retention.Done),
		Dead:       time.Duration(r.cfg.Retention.Dead),
		Period:     store.PartitionPeriod(r.cfg.Retention.Partitions),
		Partitions: r.store,
		Logger:     r.logger,
		OnPass: func(deleted int64, err error) {
			outcome := "ok"
			if err != nil {
				outcome = "failed"
			}
			r.retentionPasses.WithLabelValues(outcome).Inc()
			r.retentionDeleted.Add(float64(deleted))
		},
	})
}

// signatureRule returns the signature-failure rule, its alerts posted by
// alerter, each linking to the source's rejections in the console, and
// counted in hookrelay_signature_alerts_total.
func (r *Relay) signatureRule(alerter *delivery.Alerter) *receiver.SignatureRule {
	f := r.cfg.Alerts.SignatureFailures
	console := r.cfg.Alerts.ConsoleURL
	for _, src := range r.cfg.Sources {
		for _, o := range []string{delivery.AlertSent, delivery.AlertFailed, delivery.AlertDropped} {
			r.signatureAlerts.WithLabelValues(src.Name, o)
		}
	}
	return &receiver.SignatureRule{
		Store:     r.store,
		Threshold: f.Threshold(),
		Window:    time.Duration(f.Window),
		Logger:    r.logger,
		Raise: func(a receiver.SignatureAlert) {
			r.logger.Warn("signature failures above the alert rate",
				"source", a.Source, "rejections", a.Rejections, "window_seconds", a.WindowSeconds)
			a.URL = link.Rejections(console, a.Source)
			alerter.Post("signature-failure alert", a, func(outcome string) {
				r.signatureAlerts.WithLabelValues(a.Source, outcome).Inc()
			}, "source", a.Source)
		},
	}
}
