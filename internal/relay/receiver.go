package relay

import (
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/groupcommit"
	"github.com/hookrelay/hookrelay/internal/receiver"
	"github.com/hookrelay/hookrelay/internal/signature"
)

// buildReceiver wires the ingest handler: the parts every reload shares
// (the metrics, the limits, the group committer, the rejection record, the
// signals),
// then the receiver of the config's sources and destinations.
func (r *Relay) buildReceiver() (*receiver.Receiver, error) {
	cfg := r.cfg
	metrics := receiver.NewMetrics(r.registry)
	r.ingestMetrics = metrics
	r.ingestLimits = receiver.NewLimits(receiver.LimitOptions{
		MaxConcurrency:   cfg.Ingest.MaxConcurrency,
		MaxInflightBytes: int64(cfg.Ingest.MaxInflightBytes),
	}, r.logger)
	opts := commitOptions(cfg.Database)
	opts.Observe = func(size int, took time.Duration, err error) {
		metrics.ObserveCommit(size, took, err)
		r.commits.observe(err, time.Now())
	}
	r.committer = newLeasingCommitter(groupcommit.New(r.store, opts, r.logger), r.wake)
	r.rejections = receiver.NewRejectionRecorder(r.store, receiver.RejectionOptions{
		Keep:      cfg.Ingest.RejectionsKeep,
		PerSecond: float64(cfg.Ingest.RejectionsPerSecond),
	}, metrics, r.logger)
	r.signals = r.newIngestSignals()
	rc, tally, err := r.newReceiver(cfg)
	if err != nil {
		return nil, err
	}
	r.tally = tally
	return rc, nil
}

// newReceiver builds the ingest handler of cfg's sources and destinations
// over the shared parts, with a tally of its own sources.
func (r *Relay) newReceiver(cfg *config.Config) (*receiver.Receiver, *receiver.Tally, error) {
	sources := make([]receiver.Source, 0, len(cfg.Sources))
	for i, s := range cfg.Sources {
		scheme, err := signature.New(s.SchemeOptions())
		if err != nil {
			return nil, nil, fmt.Errorf("sources[%d] (%s): %w", i, s.Name, err)
		}
		if s.Verify == "none" {
			r.logger.Warn("SOURCE VERIFIES NOTHING: anyone who can reach it can inject events; use only for local development",
				"source", s.Name)
		}
		sources = append(sources, receiver.Source{Name: s.Name, Scheme: scheme, MaxBody: int64(s.MaxBody), Fingerprints: s.SlotFingerprints()})
	}

	// The routing table is shared by the receivers of every reload: cfg's
	// destinations are checked here, and set once cfg is the running
	// config (see Reload).
	if _, err := Router(cfg); err != nil {
		return nil, nil, fmt.Errorf("build router: %w", err)
	}

	names := make([]string, 0, len(cfg.Sources))
	for _, s := range cfg.Sources {
		names = append(names, s.Name)
	}
	tally := receiver.NewTally(r.store, names, r.logger)

	return receiver.New(receiver.Options{
		Sources:       sources,
		Router:        r.routes,
		Committer:     r.committer,
		Rejections:    r.rejections,
		Tally:         tally,
		Slots:         r.signals.slots,
		Rejected:      r.signals.rejected,
		Metrics:       r.ingestMetrics,
		Logger:        r.logger,
		Limits:        r.ingestLimits,
		MinUploadRate: int64(cfg.Ingest.MinUploadRate),
		ReadTimeout:   time.Duration(cfg.Ingest.ReadTimeout),
	}), tally, nil
}
