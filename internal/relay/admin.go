package relay

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// adminMux serves the admin listener: health, readiness, metrics, the
// admin API and the web console. None of it is ever on the public listener.
func (r *Relay) adminMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", r.healthz)
	mux.HandleFunc("GET /readyz", r.readyz)
	mux.Handle("GET /metrics", r.metricsHandler())
	svc := r.adminService()
	mux.Handle("/api/", svc.Handler())
	mux.Handle("/", r.consoleHandler(svc))
	return mux
}

// readyz answers 200 while the store answers and can write, 503 otherwise,
// so a load balancer stops sending webhooks to a relay that could not keep
// them. A store can answer reads while its writes fail (a full disk), so the
// outcome of the latest ingest commit counts too.
func (r *Relay) readyz(w http.ResponseWriter, req *http.Request) {
	ctx, cancel := context.WithTimeout(req.Context(), 2*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "application/json")
	err := r.store.Ping(ctx)
	if err == nil && r.commits.failing(time.Now()) {
		err = errors.New("the latest ingest commit failed")
	}
	if err != nil {
		r.logger.Warn("not ready", "error", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":"storage_unavailable"}`))
		return
	}
	_, _ = w.Write([]byte(`{"status":"ready"}`))
}
