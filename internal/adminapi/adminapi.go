// Package adminapi is hookrelay's JSON admin API: listing and reading
// events, re-checking their signatures, replay and backfill, statistics,
// and the claim and ack of pull destinations. Every route takes a bearer
// token from the config; its role decides what the token may do. It is
// served on the admin listener only, never on the public one.
package adminapi

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Log keys.
const (
	keyToken       = "token"
	keyRole        = "role"
	keyMethod      = "method"
	keyPath        = "path"
	keyStatus      = "status"
	keyError       = "error"
	keyDestination = "destination"
	keyEventID     = "event_id"
	keyDeliveryID  = "delivery_id"
)

// Options configure the admin API.
type Options struct {
	// Store is the relay's store.
	Store  store.DB
	Config *config.Config
	// Logger receives errors and the audit lines; nil discards them.
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Wake, when set, tells the delivery engine that a destination has new
	// due work (after a replay or a backfill).
	Wake func(destination string)
	// Puller serves the claims and acks of pull destinations; nil makes
	// one over Store that raises no alert and registers no metric.
	Puller *delivery.Puller
	// Reload, when set, serves POST /api/v1/reload.
	Reload ReloadFunc
	// Jobs holds the replay and backfill jobs; the relay keeps one across
	// reloads and closes it at shutdown. Nil gives the service its own.
	// The newest service built over a Jobs runs the jobs it takes over
	// from nodes that died (see Jobs.Start).
	Jobs *Jobs
}

// handler serves the admin API over its Service.
type handler struct {
	*Service
	closing *shutdownWatch
	mux     *http.ServeMux
}

// New returns the admin API's handler. It serves the paths under /api/v1/
// as they are, so mount it on "/api/" without stripping the prefix.
func New(o Options) http.Handler { return NewService(o).Handler() }

// Handler returns the admin API's handler over s. It serves the paths
// under /api/v1/ as they are, so mount it on "/api/" without stripping the
// prefix.
func (s *Service) Handler() http.Handler {
	h := &handler{
		Service: s,
		closing: newShutdownWatch(),
		mux:     http.NewServeMux(),
	}
	h.handle("GET /api/v1/events", allowRead, h.listEvents)
	h.handle("GET /api/v1/events/{id}", allowRead, h.showEvent)
	h.handle("GET /api/v1/events/{id}/raw", allowRead, h.rawEvent)
	h.handle("POST /api/v1/events/{id}/verify", allowRead, h.verifyEvent)
	h.handleAudited("POST /api/v1/replay", allowAdmin, h.replay)
	h.handleAudited("POST /api/v1/backfill", allowAdmin, h.backfill)
	h.handleAudited("POST /api/v1/purge", allowAdmin, h.purge)
	h.handleAudited("POST /api/v1/jobs/replay", allowAdmin, h.startReplayJob)
	h.handleAudited("POST /api/v1/jobs/backfill", allowAdmin, h.startBackfillJob)
	h.handle("GET /api/v1/jobs", allowRead, h.listJobs)
	h.handle("GET /api/v1/jobs/{id}", allowRead, h.showJob)
	h.handleAudited("POST /api/v1/jobs/{id}/cancel", allowAdmin, h.cancelJob)
	h.handleAudited("POST /api/v1/destinations/{name}/claim", allowConsume, h.claim)
	h.handleAudited("POST /api/v1/deliveries/{id}/ack", allowConsume, h.ack)
	h.handle("GET /api/v1/stats", allowRead, h.stats)
	h.handle("GET /api/v1/nodes", allowRead, h.nodes)
	h.handle("GET /api/v1/secrets", allowRead, h.secrets)
	h.handleAudited("POST /api/v1/reload", allowAdmin, h.reload)
	h.handle("GET /api/v1/rejections", allowRead, h.rejections)
	h.handle("GET /api/v1/audit", allowRead, h.auditLog)
	h.handle("GET /api/v1/failures", allowRead, h.failures)
	h.handle("GET /api/v1/destinations", allowRead, h.listDestinations)
	h.handleAudited("POST /api/v1/destinations/{name}/pause", allowAdmin, h.pause)
	h.handleAudited("POST /api/v1/destinations/{name}/resume", allowAdmin, h.resume)
	h.handleAudited("POST /api/v1/deliveries/{id}/skip", allowAdmin, h.skip)
	return h
}

// unauthorized is the message of a 401: what to send instead.
func (h *handler) unauthorized() string {
	msg := "missing or unknown bearer token: send Authorization: Bearer with a token from the config's tokens list"
	if f := h.Config().AdminTokenFile; f != "" {
		msg += "; the config has no admin token, so the relay generated one, kept in " + f
	}
	return msg
}

// ServeHTTP authenticates every request, so that an unknown route tells
// nothing to a caller without a valid token, then routes it.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tok, ok := h.tokens.authenticate(r.Header.Get("Authorization"))
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="hookrelay"`)
		refuseUnread(w)
		writeError(w, http.StatusUnauthorized, h.unauthorized())
		return
	}
	h.mux.ServeHTTP(w, r.WithContext(withToken(r.Context(), tok)))
}

// handle registers a route that only the tokens allows accepts let in.
func (h *handler) handle(pattern string, allows func(*config.Token) bool, fn http.HandlerFunc) {
	h.mux.HandleFunc(pattern, h.guard(allows, fn))
}

// handleAudited registers a mutating route: every call, refused ones
// included, writes an audit line.
func (h *handler) handleAudited(pattern string, allows func(*config.Token) bool, fn http.HandlerFunc) {
	h.mux.HandleFunc(pattern, h.audited(h.guard(allows, fn)))
}

// guard answers 403 to a token whose role allows does not accept.
func (h *handler) guard(allows func(*config.Token) bool, fn http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !allows(tokenFrom(r.Context())) {
			refuseUnread(w)
			h.fail(w, r, errForbidden)
			return
		}
		fn(w, r)
	}
}
