package relay

import (
	"context"
	"fmt"
	"sync"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/delivery"
)

// startDelivery runs the delivery engine for the configured push and
// handler destinations in the background. Its Wake tells a destination's
// loop that a commit gave it work, and the receiver's commits lease at
// ingest for it; stop cancels the engine and waits until the attempts in
// flight have finished and recorded their outcomes.
func (r *Relay) startDelivery(ctx context.Context) (eng *delivery.Engine, stop func(), err error) {
	var push []config.Destination
	for _, d := range r.cfg.Destinations {
		if !d.Pull {
			push = append(push, d)
		}
	}
	claimers, outcomes := deliveryOptions(r.cfg.Database)
	eng, err = delivery.New(delivery.Options{
		Queue:        r.store,
		Destinations: push,
		Alerts:       r.cfg.Alerts,
		Logger:       r.logger,
		Registerer:   r.registry,
		Claimers:     claimers,
		Outcomes:     outcomes,
		Handlers:     r.handlers,
		Within:       r.store,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("start delivery: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := eng.Run(ctx); err != nil {
			r.logger.Error("delivery engine stopped", "error", err)
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
	return eng, stop, nil
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
