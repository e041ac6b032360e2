package relay

import "net/http"

// fataler is a store that can fail in a way only a restart recovers from
// (the SQLite driver after a failed fsync, or once its file was removed).
type fataler interface {
	Fatal() error
}

// healthz answers 200 while the process can still do its work, 503 once
// its store has failed for good, so that a supervisor restarts it. A store
// that is only unreachable for now (a database outage, no descriptor left
// for a moment) fails readiness, not liveness: it recovers by itself.
func (r *Relay) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if f, ok := r.store.(fataler); ok {
		if err := f.Fatal(); err != nil {
			r.logger.Error("not live: the store needs a restart", "error", err)
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":"storage_failed"}`))
			return
		}
	}
	_, _ = w.Write([]byte(`{"status":"ok"}`))
}
