package relay

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsHandler serves /metrics: open, or, when metrics_token is set,
// to requests that carry it as a bearer token (401 otherwise, before any
// metric is collected).
func (r *Relay) metricsHandler() http.Handler {
	// promhttp's own counter is not shared with an application's
	// registerer, whose /metrics handler has its own.
	h := promhttp.HandlerFor(r.registry, promhttp.HandlerOpts{Registry: r.registry.Registry})
	if r.cfg.MetricsToken == "" {
		return h
	}
	want := sha256.Sum256([]byte(r.cfg.MetricsToken))
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		got, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
		digest := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(digest[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "a metrics token is required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, req)
	})
}
