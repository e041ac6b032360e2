package relay

import "net/http"

// healthz answers 200 while the process can still do its work, 503 once
// its store has failed for good, so that a supervisor restarts it. A store
// that is only unreachable for now (a database outage, no descriptor left
// for a moment) fails readiness, not liveness: it recovers by itself.
func (r *Relay) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if err := r.store.Fatal(); err != nil {
		r.logger.Error("not live: the store needs a restart", "error", err)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":"storage_failed"}`))
		return
	}
	_, _ = w.Write([]byte(`{"status":"ok"}`))
}
