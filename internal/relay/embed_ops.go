package relay

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/delivery"
)

// Embedding is what an application that embeds hookrelay sets besides its
// handlers: its callbacks, where its metrics go, and whether the admin
// handler serves the console.
type Embedding struct {
	// Callbacks are told of the failures this process records.
	Callbacks Callbacks
	// Registerer, when set, receives hookrelay's collectors as well (see
	// metricsRegistry): those registered so far and those to come, until
	// Shutdown unregisters them. /metrics goes on serving them.
	Registerer prometheus.Registerer
	// NoConsole leaves the web console out of AdminHandler: its paths
	// answer 404, while the API, health and metrics stay.
	NoConsole bool
}

// Embed applies e. Call it once, after New and before StartWork; on error
// none of e applies.
func (r *Relay) Embed(e Embedding) error {
	r.reload.mu.Lock()
	defer r.reload.mu.Unlock()
	if e.Registerer != nil {
		if err := r.registry.share(e.Registerer); err != nil {
			return err
		}
	}
	if e.Callbacks.Dead != nil || e.Callbacks.AttemptFailed != nil {
		q, err := newCallbackQueue(e.Callbacks, r.registry, r.logger)
		if err != nil {
			r.registry.unshare()
			return err
		}
		r.callbacks = q
		r.puller.SetWatcher(q)
	}
	if e.NoConsole {
		r.noConsole = true
		r.reload.admin.set(r.adminMux())
	}
	return nil
}

// watcher is what the delivery engine tells of the failures it records:
// the application's callbacks, or nil.
func (r *Relay) watcher() delivery.Watcher {
	if r.callbacks == nil {
		return nil
	}
	return r.callbacks
}

// consoleHandler is what the admin listener serves at "/": the console
// over svc, or 404 without it.
func (r *Relay) consoleHandler(svc *adminapi.Service) http.Handler {
	if r.noConsole {
		return http.NotFoundHandler()
	}
	return r.console(svc)
}

// Operations returns the admin API's service over the running config, as
// the admin API serves it: what an application calls for the operations
// the API offers, without HTTP.
func (r *Relay) Operations() *adminapi.Service {
	r.reload.mu.Lock()
	defer r.reload.mu.Unlock()
	return r.adminService()
}
