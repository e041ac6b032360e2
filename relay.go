package hookrelay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Relay is hookrelay running inside an application: it receives webhooks
// on the handler Receiver returns, stores them in the application's
// database, and delivers them — to handler destinations declared with
// Handle, and to the push and pull destinations of Config.File. Its methods
// are safe for concurrent use.
type Relay struct {
	cfg    Config
	logger *slog.Logger

	mu       sync.Mutex
	handlers []Destination               // guarded by mu
	funcs    map[string]delivery.Handler // guarded by mu
	inner    *relay.Relay                // guarded by mu; set by Start
	state    int                         // guarded by mu: one of the states below
	ingest   http.Handler                // guarded by mu; set by Start
	admin    http.Handler                // guarded by mu; set by Start

	// leaseMargin is how much longer than its Timeout a handler's claim
	// is leased; 0 means the engine's default. Tests shorten it (see
	// export_test.go), so that a handler lost with its process is found
	// lost in a moment.
	leaseMargin time.Duration
	// routeRefresh is how often the Receiver reads the handler
	// destinations other replicas registered; 0 means the default. Tests
	// slow it down (see export_test.go).
	routeRefresh time.Duration
}

// Relay states.
const (
	stateNew = iota
	stateStarted
	stateClosed
)

// New checks c and returns a Relay that is not started yet: declare its
// handler destinations with Handle, then call Start. It does not touch
// the database.
func New(c Config) (*Relay, error) {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if err := c.checkDatabase(); err != nil {
		return nil, err
	}
	if _, err := internalConfig(c, nil); err != nil {
		return nil, err
	}
	return &Relay{cfg: c, logger: c.Logger, funcs: map[string]delivery.Handler{}}, nil
}

var validName = regexp.MustCompile(`^[a-z0-9_-]+$`)

// Handle declares a handler destination: every event of d's sources and
// types is handed to fn, once per event, inside the transaction that marks
// its delivery done (see HandlerFunc). Handle panics, as http.ServeMux's
// does, when fn is nil, d's name is empty, invalid or declared twice, or
// the Relay has started; Start reports what else is wrong with d.
func (r *Relay) Handle(d Destination, fn HandlerFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case fn == nil:
		panic("hookrelay: Handle with a nil HandlerFunc")
	case !validName.MatchString(d.Name):
		panic(fmt.Sprintf("hookrelay: Handle: destination name %q (want lower-case letters, digits, '-' and '_')", d.Name))
	case r.funcs[d.Name] != nil:
		panic(fmt.Sprintf("hookrelay: Handle: destination %q declared twice", d.Name))
	case r.state != stateNew:
		panic("hookrelay: Handle after Start")
	}
	r.handlers = append(r.handlers, d)
	r.funcs[d.Name] = func(ctx context.Context, tx any, c store.Claim) error {
		ev := eventOf(c)
		return guard(ctx, tx, func(tx Tx) error { return fn(ctx, tx, ev) })
	}
}

// Start opens the database, applies hookrelay's migrations — which create
// and change hookrelay's own tables only, in their own schema — unless
// Config.ManualMigrations says the application does, and starts
// delivering: each handler destination's deliveries are handled in the
// background until Shutdown or Close. From then on Receiver stores
// webhooks. ctx bounds opening and migrating only; handlers' contexts
// carry its values, not its cancellation.
func (r *Relay) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state != stateNew {
		return errors.New("hookrelay: Start called twice or after Close")
	}
	cfg, opts, err := r.cfg.resolved(ctx, r.handlers)
	if err != nil {
		return err
	}
	inner, err := relay.NewWith(ctx, cfg, relay.RoleAll, opts, r.logger)
	if err != nil {
		return fmt.Errorf("hookrelay: start: %w", err)
	}
	if err := inner.Embed(r.embedding()); err != nil {
		_ = inner.Shutdown(context.WithoutCancel(ctx))
		return fmt.Errorf("hookrelay: start: %w", err)
	}
	inner.SetHandlers(relay.Handlers{Funcs: r.funcs, LeaseMargin: r.leaseMargin, RouteRefresh: r.routeRefresh})
	if err := inner.StartWork(ctx); err != nil {
		_ = inner.Shutdown(context.WithoutCancel(ctx))
		return fmt.Errorf("hookrelay: start: %w", err)
	}
	r.inner, r.ingest, r.admin, r.state = inner, inner.IngestHandler(), inner.AdminHandler(), stateStarted
	return nil
}

// Receiver returns the ingest handler: POST /webhooks/{source}, with every
// rule of hookrelay's ingest contract (the README's "What the provider is
// told"): it verifies the signature over the raw bytes, stores the event
// durably, and only then answers 200. Mount it on the path prefix
// "/webhooks/" of the application's mux:
//
//	mux.Handle("/webhooks/", relay.Receiver())
//
// Before Start and after Close it answers 503 with Retry-After, which
// providers retry.
func (r *Relay) Receiver() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.serve(w, req, func() http.Handler { return r.ingest })
	})
}

// Admin returns the admin handler: /healthz, /readyz, /metrics, the admin
// API under /api/ and the web console at / (unless
// Config.DisableConsole), with the tokens of Config.File and
// Config.Tokens. Serve it on a listener of its own that only operators
// reach (as `hookrelay serve` does on admin_listen), not on the public one
// and not under a path prefix.
func (r *Relay) Admin() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.serve(w, req, func() http.Handler { return r.admin })
	})
}

// serve passes the request to the handler pick returns while the Relay
// runs, and answers 503 otherwise.
func (r *Relay) serve(w http.ResponseWriter, req *http.Request, pick func() http.Handler) {
	r.mu.Lock()
	h := pick()
	running := r.state == stateStarted
	r.mu.Unlock()
	if !running || h == nil {
		w.Header().Set("Retry-After", "1")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":"not_running"}`))
		return
	}
	h.ServeHTTP(w, req)
}

// Shutdown stops the Relay. At once, no handler starts any more and no
// delivery is claimed; handlers already running go on, until ctx ends, and
// their outcomes are recorded as usual. When ctx ends first, their
// contexts are cancelled: each rolls back, and its event goes back to the
// queue unattempted, to be handled again after a restart (a handler that
// ignores its context keeps Shutdown waiting). Meanwhile the webhooks being
// stored commit, then hookrelay's connections to the database close; the
// Receiver answers 503 from the start. Shut the application's HTTP server
// down first, so that no webhook arrives meanwhile. Shutting down twice, or
// a Relay never started, is a no-op.
func (r *Relay) Shutdown(ctx context.Context) error {
	r.mu.Lock()
	inner, state := r.inner, r.state
	if state == stateStarted {
		inner.HaltDelivery()
	}
	r.state = stateClosed
	r.mu.Unlock()
	if state != stateStarted {
		return nil
	}
	if err := inner.Shutdown(ctx); err != nil {
		return fmt.Errorf("hookrelay: shut down: %w", err)
	}
	return nil
}

// CloseTimeout is how long Close lets the handlers running finish before
// it cancels them.
const CloseTimeout = 30 * time.Second

// Close is Shutdown with CloseTimeout to finish: the handlers running get
// that long, then their contexts are cancelled and they roll back.
func (r *Relay) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
	defer cancel()
	return r.Shutdown(ctx)
}
