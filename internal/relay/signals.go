package relay

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/console/link"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/receiver"
)

// ingestSignals are the receiver's side of rotation status and alerting:
// the secret-slot counter and the signature-failure alerts.
type ingestSignals struct {
	slots   *receiver.SlotCounter
	watch   *receiver.RejectionWatch
	alerter *delivery.Alerter
}

// newIngestSignals builds the slot counter and, when the config asks for
// signature-failure alerts, the watch that raises them, each linking to
// the source's rejections in the console.
func (r *Relay) newIngestSignals() (*ingestSignals, error) {
	s := &ingestSignals{slots: receiver.NewSlotCounter(r.store, r.logger)}
	outcomes := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hookrelay_signature_alerts_total",
		Help: "Signature-failure alerts raised, by source and outcome (sent, failed, dropped).",
	}, []string{"source", "outcome"})
	r.registry.MustRegister(outcomes)
	f := r.cfg.Alerts.SignatureFailures
	if f.Threshold() <= 0 || r.cfg.Alerts.URL == "" {
		return s, nil
	}
	for _, src := range r.cfg.Sources {
		for _, o := range []string{delivery.AlertSent, delivery.AlertFailed, delivery.AlertDropped} {
			outcomes.WithLabelValues(src.Name, o)
		}
	}
	alerter, err := delivery.StartAlerter(context.Background(), r.cfg.Alerts, r.logger)
	if err != nil {
		return nil, fmt.Errorf("start signature-failure alerts: %w", err)
	}
	s.alerter = alerter
	console := r.cfg.Alerts.ConsoleURL
	s.watch = receiver.NewRejectionWatch(f.Threshold(), time.Duration(f.Window), func(a receiver.SignatureAlert) {
		r.logger.Warn("signature failures above the alert rate",
			"source", a.Source, "rejections", a.Rejections, "window_seconds", a.WindowSeconds)
		a.URL = link.Rejections(console, a.Source)
		s.alerter.Post("signature-failure alert", a, func(outcome string) {
			outcomes.WithLabelValues(a.Source, outcome).Inc()
		}, "source", a.Source)
	})
	return s, nil
}

// close writes the last slot counts and posts the alerts still queued.
func (s *ingestSignals) close() {
	if s == nil {
		return
	}
	s.slots.Close()
	if s.alerter != nil {
		s.alerter.Stop()
	}
}
