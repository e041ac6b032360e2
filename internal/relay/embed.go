package relay

import (
	"context"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/delivery"
)

// An application that embeds hookrelay (package hookrelay) serves the
// relay's handlers on its own listeners: it builds the Relay with New,
// sets the handlers of its handler destinations, starts the work with
// StartWork instead of Start, and mounts IngestHandler and AdminHandler.

// SetHandlers gives the handler destinations of the config their
// handlers, by destination name. Call it before StartWork or Start.
func (r *Relay) SetHandlers(h map[string]delivery.Handler) { r.handlers = h }

// StartWork starts what Start starts but the listeners: the delivery
// engine, when this role delivers, and retention.
func (r *Relay) StartWork(ctx context.Context) error {
	r.reload.mu.Lock()
	defer r.reload.mu.Unlock()
	r.reload.started = true
	return r.startWork(ctx)
}

// startWork starts the delivery engine, when this role delivers to push
// or handler destinations, and retention; its caller holds r.reload.mu.
func (r *Relay) startWork(ctx context.Context) error {
	if r.role.delivers() && r.hasPushDestinations() {
		eng, stop, err := r.startDelivery(context.WithoutCancel(ctx))
		if err != nil {
			return err
		}
		r.useEngine(eng)
		r.stopDelivery = stop
		r.forwardNotifications(ctx)
	}
	if r.role.delivers() {
		r.stopRetention = r.startRetention(context.WithoutCancel(ctx))
	}
	return nil
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

// AdminHandler is what the admin listener serves: /healthz, /readyz,
// /metrics, the admin API under /api/ and the console at /.
func (r *Relay) AdminHandler() http.Handler { return r.admin.Handler }
