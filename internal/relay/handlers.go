package relay

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/route"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Handler destinations across replicas. Which destinations an event fans
// out to must not depend on the replica that received it, yet only the
// replicas that have a handler destination's code know of it: during a
// rolling deploy that adds one, the old replicas lack it. So each replica
// that has the code registers the destination in the store at its start
// (store.HandlerRegistry), every receiving replica reads the registered
// ones again every routeRefresh and routes to them too (route.Table), and
// each claims only those it has the code for. An event that a replica
// routed before it read a registration is caught by the registering
// replica, which backfills — idempotently, deliveries being unique per
// event and destination — the events received around the registration,
// until every replica must have read it and every event routed without
// it must have committed.

// Timings of the registered handler destinations.
const (
	// routeRefresh is how often a receiving relay reads the registered
	// handler destinations again.
	routeRefresh = time.Second
	// routeMaxAge is how long a receiver routes on what it last read;
	// past it, it stores nothing (503) until a read succeeds, so that no
	// event is routed on a view older than that.
	routeMaxAge = 10 * time.Second
	// registrationLookback is how long before a registration its
	// backfill begins: a replica whose clock runs ahead, or a body still
	// arriving, may have stamped an event routed without it a little
	// earlier.
	registrationLookback = time.Minute
	// registrationSettle is how long after a registration its backfill
	// ends: by then every receiver routes with it (routeMaxAge), and
	// every event routed without it has committed (a commit is bounded by
	// groupcommit's CommitTimeout, 10 s; 30 s leaves a margin).
	registrationSettle = routeMaxAge + 30*time.Second
)

// routeDestination returns what routing needs of a destination.
func routeDestination(d config.Destination) route.Destination {
	return route.Destination{Name: d.Name, Sources: d.Sources, Types: d.Types, OrderingKey: d.OrderingKey}
}

// routeDestinations returns what routing needs of cfg's destinations.
func routeDestinations(cfg *config.Config) []route.Destination {
	dests := make([]route.Destination, 0, len(cfg.Destinations))
	for _, d := range cfg.Destinations {
		dests = append(dests, routeDestination(d))
	}
	return dests
}

// Router returns the routing of cfg's destinations alone, as a receiver
// routes when no other replica registered a handler destination: it
// returns an error naming a destination whose type glob is malformed.
func Router(cfg *config.Config) (*route.Router, error) {
	return route.New(routeDestinations(cfg))
}

// newRoutes builds the routing table of cfg's destinations and reads the
// registered handler destinations into it.
func (r *Relay) newRoutes(ctx context.Context, cfg *config.Config) error {
	t, err := route.NewTable(routeDestinations(cfg), routeMaxAge)
	if err != nil {
		return fmt.Errorf("build router: %w", err)
	}
	r.routes = t
	return r.learnRoutes(ctx)
}

// learnRoutes reads the registered handler destinations into the routing
// table.
func (r *Relay) learnRoutes(ctx context.Context) error {
	at := time.Now()
	hs, err := r.store.HandlerDestinations(ctx)
	if err != nil {
		return fmt.Errorf("read handler destinations: %w", err)
	}
	ds := make([]route.Destination, 0, len(hs))
	for _, h := range hs {
		d := route.Destination{Name: h.Name, Sources: h.Sources, Types: h.Types, OrderingKey: h.OrderingKey}
		if _, err := route.New([]route.Destination{d}); err != nil {
			// Registered by a replica whose checks differ from this
			// one's: routing the others matters more.
			r.logger.Warn("registered handler destination left out of routing", "destination", h.Name, "error", err)
			continue
		}
		ds = append(ds, d)
	}
	return r.routes.SetRegistered(ds, at)
}

// startRoutes reads the registered handler destinations again every
// refresh until the function it returns is called; a failure is logged
// when it begins and when it ends.
func (r *Relay) startRoutes(ctx context.Context, refresh time.Duration) (stop func()) {
	failing := false // used by the loop's goroutine alone
	return every(ctx, refresh, func(ctx context.Context) {
		rctx, cancel := context.WithTimeout(ctx, routeRefresh)
		defer cancel()
		err := r.learnRoutes(rctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !failing:
			r.logger.Warn("handler destinations not read; ingest answers 503 once the last read is older than "+routeMaxAge.String(), "error", err)
		case err == nil && failing:
			r.logger.Info("handler destinations read again")
		}
		failing = err != nil
	})
}

// registerHandlers registers the handler destinations this relay has the
// code for, reads the registered ones again, and backfills around each
// registration in the background until the function it returns is called
// (see registrationSettle).
func (r *Relay) registerHandlers(ctx context.Context) (stop func(), err error) {
	var ds []store.HandlerDestination
	for _, d := range r.cfg.Destinations {
		if d.Handler && r.handlers.Funcs[d.Name] != nil {
			ds = append(ds, store.HandlerDestination{Name: d.Name, Sources: d.Sources, Types: d.Types, OrderingKey: d.OrderingKey})
		}
	}
	if len(ds) == 0 {
		return func() {}, nil
	}
	registered, err := r.store.RegisterHandlers(ctx, ds, time.Now())
	if err != nil {
		return nil, err
	}
	if r.routes != nil {
		if err := r.learnRoutes(ctx); err != nil {
			return nil, err
		}
	}
	svc := r.adminService()
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	for _, h := range registered {
		dest, ok := r.cfg.Destination(h.Name)
		if !ok {
			continue
		}
		since, until := h.RegisteredAt.Add(-registrationLookback), h.RegisteredAt.Add(registrationSettle)
		wg.Go(func() {
			for {
				last := !time.Now().Before(until)
				n, err := svc.Fill(ctx, dest, since, until)
				switch {
				case ctx.Err() != nil:
					return
				case err != nil:
					r.logger.Warn("backfill of a registered handler destination failed; trying again", "destination", h.Name, "error", err)
					last = false
				case n > 0:
					r.logger.Info("backfilled a registered handler destination: events another replica routed before it read the registration",
						"destination", h.Name, "created", n)
					r.wake(h.Name)
				}
				if last {
					return
				}
				pause(ctx, min(routeRefresh, max(0, time.Until(until))))
			}
		})
	}
	return func() {
		cancel()
		wg.Wait()
	}, nil
}

// every runs f every d, the first time d from now, until the function it
// returns is called, which waits for a run in progress.
func every(ctx context.Context, d time.Duration, f func(ctx context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for pause(ctx, d); ctx.Err() == nil; pause(ctx, d) {
			f(ctx)
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// pause waits for d or ctx, whichever comes first.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
