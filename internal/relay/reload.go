package relay

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/receiver"
)

// retireAfter is how long a replaced receiver's tally keeps counting for
// the requests that were in flight on it when a reload swapped it out: as
// long as a request may take.
const retireAfter = shutdownGrace

// ErrNoReload reports a relay that has no config file to read again.
var ErrNoReload = errors.New("relay: reload: no config loader (serve sets one)")

// ErrShuttingDown reports a reload asked of a relay that has begun to shut
// down: it would swap in parts that shutdown has already closed or passed.
var ErrShuttingDown = errors.New("relay: reload: shutting down")

// swapHandler serves with the handler set last. A request keeps the
// handler it started with, so swapping never cuts one short.
type swapHandler struct{ h atomic.Pointer[http.Handler] }

func (s *swapHandler) set(h http.Handler) http.Handler {
	s.h.Store(&h)
	return s
}

func (s *swapHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}

// reloadState is what live reload swaps, and the parts it retires.
type reloadState struct {
	mu      sync.Mutex // serialises Start and Reload; guards the fields below and r.cfg after New
	load    func() (*config.Config, error)
	started bool
	ended   bool                 // shutdown has begun: reloads are refused (see endReloads)
	backlog prometheus.Collector // nil without destinations

	ingest swapHandler
	admin  swapHandler

	// retired counts the replaced parts still finishing; shutdown closes
	// stopping, which ends their wait, then waits for them.
	retired  sync.WaitGroup
	stopping chan struct{}
	stopOnce sync.Once
}

func newReloadState() *reloadState { return &reloadState{stopping: make(chan struct{})} }

// retire runs finish after retireAfter, or at once when the relay shuts
// down; shutdown waits for it.
func (s *reloadState) retire(finish func()) {
	s.retired.Add(1)
	go func() {
		defer s.retired.Done()
		t := time.NewTimer(retireAfter)
		defer t.Stop()
		select {
		case <-t.C:
		case <-s.stopping:
		}
		finish()
	}()
}

// finishRetired ends the retired parts' wait and waits for them.
func (s *reloadState) finishRetired() {
	s.stopOnce.Do(func() { close(s.stopping) })
	s.retired.Wait()
}

// endReloads refuses every reload from now on and returns the tally the
// last one left in use, for shutdown to close: a reload that another node
// announced may otherwise swap in a new one while shutdown closes the old.
func (r *Relay) endReloads() *receiver.Tally {
	r.reload.mu.Lock()
	defer r.reload.mu.Unlock()
	r.reload.ended = true
	return r.tally
}

// SetConfigLoader sets how Reload reads the config again; serve reads its
// --config file.
func (r *Relay) SetConfigLoader(load func() (*config.Config, error)) {
	r.reload.mu.Lock()
	defer r.reload.mu.Unlock()
	r.reload.load = load
}

// Reload reads the config again and applies its sources, secrets,
// destinations and tokens without a restart: requests in flight finish on
// the receiver they started on, deliveries in flight finish and record
// their outcome on the engine that claimed them, while new ones go to the
// new receiver and engine. A config that does not load is refused with its
// problems and the running config stays. Keys that only a restart applies
// (database, listeners, ingest, log, fleet, retention, alerts) keep their
// running values and are named in the summary.
func (r *Relay) Reload(ctx context.Context) (adminwire.ReloadSummary, error) {
	sum, err := r.reloadConfig(ctx)
	if err == nil && r.member.stop != nil {
		r.member.reloaded(ctx)
	}
	return sum, err
}

// reloadConfig is Reload without telling the other nodes.
func (r *Relay) reloadConfig(ctx context.Context) (adminwire.ReloadSummary, error) {
	st := r.reload
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended {
		return adminwire.ReloadSummary{}, ErrShuttingDown
	}
	if st.load == nil {
		return adminwire.ReloadSummary{}, ErrNoReload
	}
	next, err := st.load()
	if err != nil {
		r.logger.Error("config reload refused: the running config stays", "error", err)
		return adminwire.ReloadSummary{}, err
	}
	cfg, restart := keepRestartOnly(r.cfg, next)

	// Build what can fail before swapping anything.
	var (
		rc    *receiver.Receiver
		tally *receiver.Tally
	)
	if r.role.receives() {
		if rc, tally, err = r.newReceiver(cfg); err != nil {
			r.logger.Error("config reload refused: the running config stays", "error", err)
			return adminwire.ReloadSummary{}, err
		}
	}
	old := r.cfg
	r.cfg = cfg
	if err := r.reloadDelivery(ctx, old, cfg); err != nil {
		r.cfg = old
		if tally != nil {
			tally.Close()
		}
		r.logger.Error("config reload refused: the running config stays", "error", err)
		return adminwire.ReloadSummary{}, err
	}
	if rc != nil {
		if err := r.routes.SetConfigured(routeDestinations(cfg)); err != nil {
			// newReceiver built a router of the same destinations.
			r.logger.Error("routing of the reloaded config refused; the events go on being routed as before", "error", err)
		}
		st.ingest.set(rc)
		if oldTally := r.tally; oldTally != nil {
			st.retire(oldTally.Close)
		}
		r.tally = tally
	}
	st.admin.set(r.adminMux())
	r.registerBacklog(cfg)
	r.fingerprint.Store(new(cfg.Fingerprint()))

	sum := adminwire.ReloadSummary{
		Sources: len(cfg.Sources), Destinations: len(cfg.Destinations), Tokens: len(cfg.Tokens),
		RestartRequired: restart,
	}
	for _, w := range cfg.Warnings {
		r.logger.Warn("config: " + w)
	}
	r.logger.Info("config reloaded", "sources", sum.Sources, "destinations", sum.Destinations, "tokens", sum.Tokens,
		"restart_required", restart)
	return sum, nil
}

// reloadDelivery replaces the delivery engine when the push destinations
// or the alert URL changed: the new engine starts claiming first, then the
// old one stops in the background once its attempts in flight have
// finished and recorded their outcomes. Claims are exclusive in the store,
// so the two never deliver the same row at once.
func (r *Relay) reloadDelivery(ctx context.Context, old, cfg *config.Config) error {
	if !r.role.delivers() || !r.reload.started || reflect.DeepEqual(pushDestinations(old), pushDestinations(cfg)) {
		return nil
	}
	prev := r.delivery
	if len(pushDestinations(cfg)) == 0 {
		r.useEngine(nil)
		r.delivery = nil
	} else {
		run, err := r.startDelivery(ctx)
		if err != nil {
			return err
		}
		r.useEngine(run.eng)
		r.delivery = run
		if prev == nil {
			r.forwardNotifications(context.WithoutCancel(ctx))
		}
	}
	if prev != nil {
		wait := prev.stop(context.Background())
		r.reload.retired.Add(1)
		go func() {
			defer r.reload.retired.Done()
			wait()
		}()
	}
	return nil
}

// pushDestinations returns cfg's push destinations.
func pushDestinations(cfg *config.Config) []config.Destination {
	var push []config.Destination
	for _, d := range cfg.Destinations {
		if !d.Pull {
			push = append(push, d)
		}
	}
	return push
}

// keepRestartOnly returns next with the keys only a restart applies set
// back to their running values, and the names of those that differ.
func keepRestartOnly(running, next *config.Config) (*config.Config, []string) {
	cfg := *next
	restart := []string{}
	keep := func(key string, run, nxt any, set func()) {
		if !reflect.DeepEqual(run, nxt) {
			restart = append(restart, key)
			set()
		}
	}
	keep("database", running.Database, next.Database, func() { cfg.Database = running.Database })
	keep("listen", running.Listen, next.Listen, func() { cfg.Listen = running.Listen })
	keep("admin_listen", running.AdminListen, next.AdminListen, func() { cfg.AdminListen = running.AdminListen })
	keep("ingest", running.Ingest, next.Ingest, func() { cfg.Ingest = running.Ingest })
	keep("log", running.Log, next.Log, func() { cfg.Log = running.Log })
	keep("fleet", running.Fleet, next.Fleet, func() { cfg.Fleet = running.Fleet })
	keep("retention", running.Retention, next.Retention, func() { cfg.Retention = running.Retention })
	keep("alerts", running.Alerts, next.Alerts, func() { cfg.Alerts = running.Alerts })
	// The store seals with the keys it was opened with.
	keep("encryption", running.Encryption, next.Encryption, func() { cfg.Encryption = running.Encryption })
	return &cfg, restart
}

// registerBacklog exports the backlog gauges of cfg's destinations,
// replacing those of the config before.
func (r *Relay) registerBacklog(cfg *config.Config) {
	if r.reload.backlog != nil {
		r.registry.Unregister(r.reload.backlog)
		r.reload.backlog = nil
	}
	if len(cfg.Destinations) == 0 {
		return
	}
	dests := make([]backlogDestination, 0, len(cfg.Destinations))
	for _, d := range cfg.Destinations {
		dests = append(dests, backlogDestination{name: d.Name, kind: d.Kind()})
	}
	c := newBacklogCollector(r.store, dests, r.logger)
	if err := r.registry.Register(c); err != nil {
		r.logger.Error("register backlog metrics", "error", fmt.Errorf("register: %w", err))
		return
	}
	r.reload.backlog = c
}
