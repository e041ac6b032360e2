package relay

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/delivery"
)

// engineRun is a delivery engine running in the background.
type engineRun struct {
	// eng is the engine: its Wake tells a destination's loop that a
	// commit gave it work, and the receiver's commits lease at ingest for
	// it (see useEngine).
	eng *delivery.Engine
	// halt stops claiming, and starting handlers, at once.
	halt context.CancelFunc
	// abort cancels the contexts of the handlers running.
	abort context.CancelFunc
	done  chan struct{} // closed once the engine has stopped
}

// startDelivery runs the delivery engine for the configured push and
// handler destinations in the background. Handlers' contexts derive from
// ctx, without its cancellation: they end when the engine is stopped and
// its caller gives up waiting for them (see stop).
func (r *Relay) startDelivery(ctx context.Context) (*engineRun, error) {
	var push []config.Destination
	for _, d := range r.cfg.Destinations {
		if !d.Pull {
			push = append(push, d)
		}
	}
	lifetime, abort := context.WithCancel(context.WithoutCancel(ctx))
	claimers, outcomes := deliveryOptions(r.cfg.Database)
	eng, err := delivery.New(delivery.Options{
		Queue:              r.store,
		Destinations:       push,
		Alerts:             r.cfg.Alerts,
		Logger:             r.logger,
		Registerer:         r.registry,
		Claimers:           claimers,
		Outcomes:           outcomes,
		Handlers:           r.handlers.Funcs,
		Within:             r.store,
		HandlerLeaseMargin: r.handlers.LeaseMargin,
		Watcher:            r.watcher(),
		Lifetime:           lifetime,
	})
	if err != nil {
		abort()
		return nil, fmt.Errorf("start delivery: %w", err)
	}
	runCtx, halt := context.WithCancel(lifetime)
	run := &engineRun{eng: eng, halt: halt, abort: abort, done: make(chan struct{})}
	go func() {
		defer close(run.done)
		if err := eng.Run(runCtx); err != nil {
			r.logger.Error("delivery engine stopped", "error", err)
		}
	}()
	return run, nil
}

// stop halts the engine at once and returns a function that waits until
// it has stopped: until the attempts in flight have finished and recorded
// their outcomes, or, once ctx ends, until the handlers still running,
// their contexts cancelled, have rolled back and handed their deliveries
// back. It may be called more than once.
func (e *engineRun) stop(ctx context.Context) (wait func()) {
	e.halt()
	unwatch := context.AfterFunc(ctx, e.abort)
	return func() {
		<-e.done
		unwatch()
		e.abort()
	}
}

// newPuller returns the Puller of the pull destinations, which every role
// runs: every role serves the admin API's claims and acks. Its dead letters
// raise the alert and the metrics the engine's do, on the same registry.
func (r *Relay) newPuller() (*delivery.Puller, error) {
	var pull []string
	for _, d := range r.cfg.Destinations {
		if d.Pull {
			pull = append(pull, d.Name)
		}
	}
	p, err := delivery.NewPuller(delivery.PullerOptions{
		Queue:        r.store,
		Events:       r.store,
		Destinations: pull,
		Alerts:       r.cfg.Alerts,
		Logger:       r.logger,
		Registerer:   r.registry,
	})
	if err != nil {
		return nil, fmt.Errorf("start pull delivery: %w", err)
	}
	return p, nil
}
