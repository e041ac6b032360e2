// Package console is hookrelay's web console: server-rendered pages on the
// admin listener to watch the relay, read events and replay them. It calls
// the same adminapi.Service as the JSON admin API, so a replay, a backfill
// or a signature check takes one code path whichever way it was asked for.
// Its templates, stylesheet and script are embedded in the binary.
package console

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Log keys.
const (
	keyToken  = "token"
	keyRole   = "role"
	keyMethod = "method"
	keyPath   = "path"
	keyStatus = "status"
	keyError  = "error"
)

// DefaultSessionTTL is how long a console session lasts after log in.
const DefaultSessionTTL = 12 * time.Hour

// Options configure the console.
type Options struct {
	// Service is the admin API's service; the console's actions call it.
	Service *adminapi.Service
	// Store is the relay's store, for what the API does not serve: the
	// rejection record, provider ids and the activity charts.
	Store Store
	// Logger receives errors; nil discards them.
	Logger *slog.Logger
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// SessionTTL is how long a session lasts; 0 means DefaultSessionTTL.
	SessionTTL time.Duration
}

// Store is the part of the store the console uses directly; its
// sessions are kept there too.
type Store interface {
	store.Store
	store.Activity
	store.ConsoleSessions
}

// Console serves the web console.
type Console struct {
	svc      *adminapi.Service
	store    Store
	cfg      *config.Config
	logger   *slog.Logger
	now      func() time.Time
	sessions *sessions
	pages    pages
	mux      *http.ServeMux
}

// New returns the console's handler. It serves "/" and the paths below it
// that the admin listener does not route elsewhere.
func New(o Options) *Console {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SessionTTL <= 0 {
		o.SessionTTL = DefaultSessionTTL
	}
	now := func() time.Time { return o.Now().UTC() }
	cfg := o.Service.Config()
	logger := o.Logger.With("component", "console")
	c := &Console{
		svc:      o.Service,
		store:    o.Store,
		cfg:      cfg,
		logger:   logger,
		now:      now,
		sessions: &sessions{store: o.Store, tokens: cfg.Tokens, ttl: o.SessionTTL, now: now, logger: logger},
		pages:    mustParsePages(),
		mux:      http.NewServeMux(),
	}

	c.mux.Handle("GET /static/", staticHandler())
	c.mux.HandleFunc("GET /{$}", c.home)
	c.mux.HandleFunc("POST /login", c.login)
	c.mux.HandleFunc("GET /logout", c.logout)
	c.mux.HandleFunc("POST /logout", c.logout)

	c.read("GET /events", c.events)
	c.read("GET /events/{id}", c.event)
	c.read("GET /events/{id}/raw", c.rawEvent)
	c.read("POST /events/{id}/verify", c.verifyEvent)
	c.admin("POST /events/{id}/replay", c.replayEvent)
	c.admin("POST /deliveries/{id}/skip", c.skipDelivery)
	c.read("GET /replay", c.replaySetForm)
	c.admin("POST /replay", c.replaySet)
	c.read("GET /destinations", c.destinations)
	c.admin("POST /destinations/{name}/backfill", c.backfill)
	c.admin("POST /destinations/{name}/pause", c.pause(true))
	c.admin("POST /destinations/{name}/resume", c.pause(false))
	c.read("GET /rejections", c.rejections)
	c.read("GET /failures", c.failures)
	c.read("GET /audit", c.audit)
	c.read("GET /jobs", c.jobs)
	c.admin("POST /jobs/{id}/cancel", c.cancelJob)
	c.mux.HandleFunc("/", c.notFound)
	return c
}

// ServeHTTP sets the security headers every answer carries, then routes.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	c.mux.ServeHTTP(w, r)
}

// read registers a route that any session may use: read or admin.
func (c *Console) read(pattern string, fn handlerFunc) {
	c.mux.HandleFunc(pattern, c.withSession(fn))
}

// admin registers a mutating route: admin sessions only, every call
// audited with the session's token name, refused ones included.
func (c *Console) admin(pattern string, fn handlerFunc) {
	inner := c.withSession(func(w http.ResponseWriter, r *http.Request, s *session) {
		if !s.admin() {
			c.fail(w, r, s, errForbidden)
			return
		}
		fn(w, r, s)
	})
	audited := c.svc.Audited(inner)
	c.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		// The audit line names the session's token; a request without a
		// session is refused before any audit.
		s, ok := c.requireSession(w, r)
		if !ok {
			return
		}
		audited(w, r.WithContext(adminapi.WithToken(r.Context(), s.token)))
	})
}

// handlerFunc is a console handler that runs inside a session.
type handlerFunc func(w http.ResponseWriter, r *http.Request, s *session)

// withSession runs fn with the request's session. A request without one
// is sent to the login page (GET) or refused (POST); a POST whose CSRF
// token does not match the session's is refused.
func (c *Console) withSession(fn handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s, ok := c.requireSession(w, r)
		if !ok {
			return
		}
		if r.Method == http.MethodPost {
			if err := checkPost(r, s.csrf); err != nil {
				c.fail(w, r, s, err)
				return
			}
		}
		fn(w, r, s)
	}
}

// requireSession returns the request's live session. Without one it
// answers the request itself — the login page, a refusal, or 503 when the
// database cannot be read — and reports false.
func (c *Console) requireSession(w http.ResponseWriter, r *http.Request) (*session, bool) {
	s, err := c.session(r)
	switch {
	case err != nil:
		c.fail(w, r, nil, err)
		return nil, false
	case s == nil:
		c.noSession(w, r)
		return nil, false
	}
	return s, true
}

// noSession answers a request that carries no live session.
func (c *Console) noSession(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	c.renderError(w, r, nil, http.StatusForbidden, "Your session has ended. Log in again.")
}

func (c *Console) notFound(w http.ResponseWriter, r *http.Request) {
	s, _ := c.session(r) // without the database, a page without the session
	c.renderError(w, r, s, http.StatusNotFound, "There is no such page.")
}
