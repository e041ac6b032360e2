package relay

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/delivery"
)

// An application that embeds hookrelay (package hookrelay) serves the
// relay's handlers on its own listeners: it builds the Relay with New,
// sets the handlers of its handler destinations, starts the work with
// StartWork instead of Start, and mounts IngestHandler and AdminHandler.

// Handlers are the code of the config's handler destinations.
type Handlers struct {
	// Funcs are the handlers, by destination name.
	Funcs map[string]delivery.Handler
	// LeaseMargin is delivery.Options' HandlerLeaseMargin.
	LeaseMargin time.Duration
	// RouteRefresh is how often the receiver reads the registered handler
	// destinations again; 0 means every second. A test slows it down to
	// play a replica that has not read a registration yet.
	RouteRefresh time.Duration
}

// SetHandlers gives the handler destinations of the config their
// handlers. Call it before StartWork or Start.
func (r *Relay) SetHandlers(h Handlers) { r.handlers = h }

// StartWork starts what Start starts but the listeners: the delivery
// engine, when this role delivers, and retention.
func (r *Relay) StartWork(ctx context.Context) error {
	r.reload.mu.Lock()
	defer r.reload.mu.Unlock()
	r.reload.started = true
	return r.startWork(ctx)
}

// startWork starts the delivery engine, when this role delivers to push
// or handler destinations, retention, and the takeover of the jobs of
// nodes that died; its caller holds r.reload.mu.
func (r *Relay) startWork(ctx context.Context) error {
	stopFill, err := r.registerHandlers(ctx)
	if err != nil {
		return fmt.Errorf("register handler destinations: %w", err)
	}
	r.stopFill = stopFill
	if r.routes != nil {
		refresh := r.handlers.RouteRefresh
		if refresh <= 0 {
			refresh = routeRefresh
		}
		r.stopRoutes = r.startRoutes(context.WithoutCancel(ctx), refresh)
	}
	if r.role.delivers() && r.hasPushDestinations() {
		run, err := r.startDelivery(ctx)
		if err != nil {
			return err
		}
		r.useEngine(run.eng)
		r.delivery = run
		r.forwardNotifications(ctx)
	}
	r.member.start(context.WithoutCancel(ctx))
	r.jobs.Start() // takes over the jobs of nodes that died
	return r.startRunner()
}

// HaltDelivery stops claiming deliveries and starting handlers at once,
// without waiting for the attempts in flight: Shutdown, which does the
// same first, waits for them. An application calls it at the moment it
// decides to stop, before what it does to stop that may take a while.
func (r *Relay) HaltDelivery() {
	r.reload.mu.Lock()
	defer r.reload.mu.Unlock()
	if r.delivery != nil {
		r.delivery.halt()
	}
}

// IngestHandler is what the public listener serves: POST
// /webhooks/{source} (and the GET a meta source answers), or nil when this
// role does not receive.
func (r *Relay) IngestHandler() http.Handler {
	if r.public == nil {
		return nil
	}
	return r.public.Handler
}

// Receiver is IngestHandler without its ServeMux: the receiver itself, for
// an application that mounts it at a path of its own and names each
// request's source with receiver.WithSource; nil when this role does not
// receive. Reloads swap the receiver behind it as behind IngestHandler.
func (r *Relay) Receiver() http.Handler {
	if r.public == nil {
		return nil
	}
	return &r.reload.ingest
}

// AdminHandler is what the admin listener serves: /healthz, /readyz,
// /metrics, the admin API under /api/ and the console at /.
func (r *Relay) AdminHandler() http.Handler { return r.admin.Handler }
