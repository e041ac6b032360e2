// Package relay assembles one hookrelay process from its configuration: the
// store, the public ingest listener, and the admin listener with health and
// metrics. The CLI's serve command and the end-to-end tests both run it.
package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/fleet"
	"github.com/hookrelay/hookrelay/internal/receiver"
	"github.com/hookrelay/hookrelay/internal/route"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
)

// Role selects which parts of hookrelay a process runs.
type Role string

// The roles of `hookrelay serve --role`.
const (
	RoleAll      Role = "all"
	RoleReceiver Role = "receiver"
	RoleWorker   Role = "worker"
)

// ParseRole returns the Role named s.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleAll, RoleReceiver, RoleWorker:
		return r, nil
	}
	return "", fmt.Errorf("unknown role %q (want all, receiver or worker)", s)
}

func (r Role) receives() bool { return r == RoleAll || r == RoleReceiver }
func (r Role) delivers() bool { return r == RoleAll || r == RoleWorker }

// shutdownGrace bounds how long in-flight requests may take to finish once
// shutdown begins.
const shutdownGrace = 25 * time.Second

// Relay is one running hookrelay process.
type Relay struct {
	cfg    *config.Config
	role   Role
	logger *slog.Logger

	store    store.DB
	registry *metricsRegistry
	// puller serves the claims and acks of pull destinations, in every
	// role: every role serves the admin API.
	puller     *delivery.Puller
	committer  *leasingCommitter
	rejections *receiver.RejectionRecorder
	tally      *receiver.Tally
	signals    *ingestSignals
	// ingestMetrics are shared by the receivers of every reload.
	ingestMetrics *receiver.Metrics
	// ingestLimits (concurrency slots, body budget, per-peer bound) are
	// shared by the receivers of every reload, so that a retired receiver
	// still finishing its requests and its successor hold one budget.
	ingestLimits *receiver.Limits
	// reload holds what live reload swaps; see reload.go.
	reload *reloadState
	// jobs are the admin API's replay and backfill jobs, kept across
	// reloads.
	jobs    *adminapi.Jobs
	commits commitHealth

	public      *http.Server
	publicLn    net.Listener
	admin       *http.Server
	adminLn     net.Listener
	serveErrs   chan error
	shutdownOne sync.Once

	// wakeDelivery is the running engine's Wake, set by useEngine when
	// this role delivers; the receiver's committer calls it through wake.
	wakeDelivery atomic.Pointer[func(destination string)]
	handlers     Handlers   // of the handler destinations; see embed.go
	delivery     *engineRun // set by Start when this role delivers
	// node names this process in the election of the fleet's runner;
	// fleet is its part in it, set by Start (see runner.go), and
	// signatureAlerts counts the alerts the runner posts, and
	// retentionPasses and retentionDeleted what its pruner did.
	node             string
	fleet            atomic.Pointer[fleetRun]
	signatureAlerts  *prometheus.CounterVec
	retentionPasses  *prometheus.CounterVec
	retentionDeleted prometheus.Counter
	// routes is the receiver's routing: the config's destinations and
	// the registered handler destinations, which stopRoutes stops
	// reading; stopFill stops the backfills of the handler destinations
	// this relay registered (see handlers.go).
	routes     *route.Table
	stopRoutes func()
	stopFill   func()

	// Set by Embed, in an application that embeds hookrelay: the queue
	// of its callbacks (nil without any), and whether the admin handler
	// leaves the console out.
	callbacks *callbackQueue
	noConsole bool

	// member is this process as a node of the fleet on its database,
	// reporting itself and following reloads (see fleet.go); fingerprint
	// is its running config's (see config.Fingerprint).
	member      *fleetNode
	fingerprint atomic.Pointer[string]

	// flushLog writes out the log lines the logger's writer holds; nil
	// when it holds none (see SetLogFlush).
	flushLog func()
}

// configFingerprint returns the fingerprint of the running config.
func (r *Relay) configFingerprint() string { return *r.fingerprint.Load() }

// Options say how New reaches the database beyond the config's URL.
type Options struct {
	// Store is what the store is opened with besides the URL and the
	// config's keys, which New sets: an application's pool, a schema.
	Store storeopen.Options
	// ManualMigrations has New apply no migration, and refuse a database
	// that lacks one (see CheckMigrated).
	ManualMigrations bool
}

// New opens and migrates the store and builds the listeners' handlers. It
// binds nothing yet; call Start.
func New(ctx context.Context, cfg *config.Config, role Role, logger *slog.Logger) (*Relay, error) {
	return NewWith(ctx, cfg, role, Options{}, logger)
}

// NewWith is New with options.
func NewWith(ctx context.Context, cfg *config.Config, role Role, opts Options, logger *slog.Logger) (*Relay, error) {
	st, err := OpenStore(ctx, cfg, opts.Store, logger)
	if err != nil {
		return nil, err
	}
	if opts.ManualMigrations {
		err = CheckMigrated(ctx, st)
	} else if err = st.Migrate(ctx); err != nil {
		err = fmt.Errorf("migrate: %w", err)
	}
	if err == nil {
		err = CheckPartitions(ctx, cfg, st)
	}
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	r := &Relay{
		cfg:       cfg,
		role:      role,
		logger:    logger,
		store:     st,
		registry:  newMetricsRegistry(),
		serveErrs: make(chan error, 2),
		reload:    newReloadState(),
		node:      fleet.NodeName(),
	}
	// Not shared with an application's registerer, which has its own.
	r.registry.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	r.registerBacklog(cfg)
	r.fingerprint.Store(new(cfg.Fingerprint()))
	r.member = newFleetNode(r)
	r.jobs = adminapi.NewJobs(st, r.node, time.Duration(cfg.Fleet.RunnerLease), logger)
	r.registerRunner()
	if r.puller, err = r.newPuller(); err != nil {
		_ = st.Close()
		return nil, err
	}

	if role.receives() {
		if err := r.newRoutes(ctx, cfg); err != nil {
			_ = st.Close()
			return nil, err
		}
		h, err := r.buildReceiver()
		if err != nil {
			_ = st.Close()
			return nil, err
		}
		mux := http.NewServeMux()
		ingest := r.reload.ingest.set(h)
		for _, p := range receiver.Patterns {
			mux.Handle(p, ingest)
		}
		ing := cfg.Ingest
		r.public = &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: time.Duration(ing.ReadHeaderTimeout),
			ReadTimeout:       time.Duration(ing.ReadTimeout),
			WriteTimeout:      time.Duration(ing.WriteTimeout),
			IdleTimeout:       time.Duration(ing.IdleTimeout),
			MaxHeaderBytes:    64 << 10,
			ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		}
	}
	// No WriteTimeout: a claim long-polls for up to a minute. A request
	// must be read whole within ReadTimeout, and the API answers one
	// without a valid token before reading its body.
	adm := cfg.Admin
	r.admin = &http.Server{
		Handler:           r.reload.admin.set(r.adminMux()),
		ReadHeaderTimeout: time.Duration(adm.ReadHeaderTimeout),
		ReadTimeout:       time.Duration(adm.ReadTimeout),
		IdleTimeout:       time.Duration(adm.IdleTimeout),
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	return r, nil
}

func (r *Relay) hasPushDestinations() bool {
	for _, d := range r.cfg.Destinations {
		if !d.Pull {
			return true
		}
	}
	return false
}

// useEngine makes eng the delivery engine that wake wakes and the
// receiver's commits lease at ingest for; nil means none.
func (r *Relay) useEngine(eng *delivery.Engine) {
	if eng == nil {
		r.wakeDelivery.Store(nil)
	} else {
		wake := eng.Wake
		r.wakeDelivery.Store(&wake)
	}
	if r.committer != nil {
		if eng == nil {
			r.committer.setEngine(nil)
		} else {
			r.committer.setEngine(eng)
		}
	}
}

// wake tells the delivery engine, if this process runs one, that a
// destination has new work.
func (r *Relay) wake(destination string) {
	if f := r.wakeDelivery.Load(); f != nil {
		(*f)(destination)
	}
}

// SetLogFlush gives the relay a function that writes out the log lines
// its logger's writer has buffered, for a writer that batches them (serve
// writes its log every 100 ms): Start calls it once it has logged where it
// serves, before the admin listener answers. Call it before Start.
func (r *Relay) SetLogFlush(flush func()) { r.flushLog = flush }

// Start starts the delivery engine when this role delivers, binds the
// listeners and serves in the background.
func (r *Relay) Start(ctx context.Context) error {
	r.reload.mu.Lock()
	defer r.reload.mu.Unlock()
	r.reload.started = true
	if err := r.startWork(ctx); err != nil {
		return err
	}
	nofile, err := descriptorLimit()
	if err != nil {
		return err
	}
	publicCap, adminCap := connCaps(r.cfg, nofile)
	if r.public != nil {
		if r.publicLn, err = listenCapped(r.cfg.Listen, publicCap); err != nil {
			return listenError("listen", r.cfg.Listen, err)
		}
		go r.serve(r.public, r.publicLn)
	}
	if r.adminLn, err = listenCapped(r.cfg.AdminListen, adminCap); err != nil {
		if r.publicLn != nil {
			_ = r.publicLn.Close()
		}
		return listenError("admin_listen", r.cfg.AdminListen, err)
	}
	attrs := []any{"role", string(r.role), "admin", r.adminLn.Addr().String(), "console", consoleURL(r.adminLn.Addr()),
		"descriptor_limit", nofile, "admin_max_connections", adminCap}
	if r.publicLn != nil {
		attrs = append(attrs, "public", r.publicLn.Addr().String(), "public_max_connections", publicCap)
	}
	// The line is written out before the admin listener answers, so that
	// once /readyz answers the log says where the console is
	// (getting-started reads it so); connections wait in the listener's
	// backlog meanwhile.
	r.logger.Info("hookrelay serving", attrs...)
	if r.flushLog != nil {
		r.flushLog()
	}
	go r.serve(r.admin, r.adminLn)
	return nil
}

// consoleURL is where the console answers on the admin listener at addr:
// an unspecified address (all interfaces) is reached on loopback.
func consoleURL(addr net.Addr) string {
	return "http://" + config.DialAddr(addr.String()) + "/"
}

func (r *Relay) serve(srv *http.Server, ln net.Listener) {
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		r.serveErrs <- fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
}

// PublicAddr is the bound address of the ingest listener, or "" when this
// role does not receive.
func (r *Relay) PublicAddr() string {
	if r.publicLn == nil {
		return ""
	}
	return r.publicLn.Addr().String()
}

// AdminAddr is the bound address of the admin listener.
func (r *Relay) AdminAddr() string { return r.adminLn.Addr().String() }

// Run starts the relay and serves until ctx is done or a listener fails,
// then shuts down gracefully.
func (r *Relay) Run(ctx context.Context) error {
	if err := r.Start(ctx); err != nil {
		_ = r.Shutdown(context.WithoutCancel(ctx))
		return err
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-r.serveErrs:
		r.logger.Error("listener failed", "error", serveErr)
	}
	return errors.Join(serveErr, r.Shutdown(context.Background()))
}

// Shutdown stops claiming deliveries and starting handlers at once, stops
// accepting webhooks, lets in-flight requests finish and their commits
// land, flushes the rejection record, and closes the store. The attempts
// in flight finish and record their outcomes; once ctx ends, the handlers
// still running have their contexts cancelled, roll back, and their
// deliveries go back to the queue, unattempted. The listeners get at most
// shutdownGrace whatever ctx says. It is safe to call more than once.
func (r *Relay) Shutdown(ctx context.Context) error {
	var err error
	r.shutdownOne.Do(func() { err = r.shutdown(ctx) })
	return err
}

func (r *Relay) shutdown(deliveryCtx context.Context) error {
	tally := r.endReloads()
	var waitDelivery func()
	if r.delivery != nil {
		r.useEngine(nil) // commits from here on lease nothing: their deliveries are pending
		waitDelivery = r.delivery.stop(deliveryCtx)
	}
	ctx, cancel := context.WithTimeout(deliveryCtx, shutdownGrace)
	defer cancel()
	if r.adminLn != nil { // a relay that never started serving has nothing to shut down
		r.logger.Info("hookrelay shutting down")
	}
	var errs []error
	if r.public != nil {
		if err := r.public.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("shut down ingest listener: %w", err))
		}
	}
	if r.committer != nil {
		r.committer.Close()
	}
	if r.rejections != nil {
		r.rejections.Close()
	}
	if tally != nil {
		tally.Close()
	}
	r.signals.close()
	if waitDelivery != nil {
		waitDelivery()
	}
	r.reload.finishRetired()
	r.stopRunner()
	if r.stopFill != nil {
		r.stopFill()
	}
	if r.stopRoutes != nil {
		r.stopRoutes()
	}
	if r.member.stop != nil {
		r.member.stop()
	}
	if r.adminLn != nil {
		if err := r.admin.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("shut down admin listener: %w", err))
		}
	}
	if r.puller != nil {
		r.puller.Close()
	}
	if r.callbacks != nil {
		r.callbacks.close(ctx) // what the engine and the Puller recorded, told
	}
	r.jobs.Close() // each stops between two batches, keeping what it did
	if err := r.store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close store: %w", err))
	}
	r.registry.unshare()
	r.logger.Info("hookrelay stopped")
	return errors.Join(errs...)
}
