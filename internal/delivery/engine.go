// Package delivery turns stored events into deliveries: per push
// destination, claimers lease due deliveries from the store's queue in
// batches, senders POST each event's raw bytes signed with the
// destination's secret, and a group committer shared by all destinations
// records the outcomes — done, skipped, failed with its next attempt, or
// dead — many to a transaction. Destinations never share a claimer, a
// sender, a connection pool or a rate limiter, so a slow or broken one
// never delays another.
package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/groupcommit"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Log keys.
const (
	keyDestination = "destination"
	keyDeliveryID  = "delivery_id"
	keyEventID     = "event_id"
	keyAttempts    = "attempts"
	keyStatus      = "status"
	keyStatusCode  = "status_code"
	keyError       = "error"
	keyDurationMS  = "duration_ms"
)

// DefaultPollInterval is how often an idle destination looks for due
// deliveries when nothing wakes it sooner.
const DefaultPollInterval = time.Second

// LeaseMargin is how much longer than its timeout a claim is leased, so
// that a lease never runs out while its request is still running and the
// outcome still has time to be recorded.
const LeaseMargin = 30 * time.Second

// Options configure an Engine.
type Options struct {
	// Queue is the store's delivery queue.
	Queue store.Queue
	// Destinations are the push destinations; pull destinations are
	// claimed over the admin API and are ignored here.
	Destinations []config.Destination
	// Alerts, when its URL is set, receives one POST per dead delivery,
	// in its format, signed with its secret when it has one, linking to
	// its console when it has one.
	Alerts config.Alerts
	// Logger receives the engine's logs; nil discards them.
	Logger *slog.Logger
	// Registerer receives the engine's metrics; nil registers none.
	Registerer prometheus.Registerer
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// PollInterval bounds how long an idle destination sleeps between
	// looks at the queue; 0 means DefaultPollInterval.
	PollInterval time.Duration
	// Claimers is how many claims of one destination may be in flight at
	// once; 0 means DefaultClaimers.
	Claimers int
	// Outcomes tunes the committer that records outcomes in batches;
	// MaxBatch defaults to DefaultOutcomeBatch, Linger to
	// DefaultOutcomeLinger (a negative Linger writes at once) and
	// CommitTimeout to 20s.
	Outcomes groupcommit.Options
	// Handlers are the handlers of the handler destinations, by name;
	// Within runs them inside the transactions that record their outcomes
	// (see handler.go).
	Handlers map[string]Handler
	Within   store.TxCompleter
	// HandlerLeaseMargin is how much longer than its timeout a handler's
	// claim is leased; 0 means LeaseMargin. A shorter one finds a
	// handler lost with its process sooner, and is for tests: a lease
	// that runs out while its handler waits for the database wastes the
	// attempt (its transaction finds the lease lost and does nothing).
	HandlerLeaseMargin time.Duration
	// Watcher, when set, is told of every failed attempt and dead
	// delivery the engine records.
	Watcher Watcher
	// Lifetime is what handlers' contexts derive from, each bounded by
	// its destination's timeout; nil means context.Background(). Run's
	// context ending stops claiming and starting handlers; Lifetime
	// ending then cancels the handlers still running, whose deliveries
	// go back to the queue unattempted once they have rolled back.
	Lifetime context.Context
}

// DefaultClaimers is how many claims of one destination may be in flight
// at once: while one waits for the store, another's deliveries are sent.
const DefaultClaimers = 2

// DefaultOutcomeBatch is the most outcomes recorded in one transaction.
const DefaultOutcomeBatch = 256

// DefaultOutcomeLinger is how long the outcome committer waits for more
// outcomes before it writes a batch of fewer than DefaultOutcomeBatch.
// An outcome's transaction has a fixed cost — its statement's start, the
// count triggers, the commit: about 400 µs of the PostgreSQL server's —
// that a batch of a handful pays for each handful; the wait delays only
// when a delivery is seen done, never a push, and a key's head is written
// at once (Outcomes.RecordNow). At 8 000 deliveries a second, 25 ms and
// 256 make batches about three times those of 10 ms and 64, and SQLite
// then keeps up with 2 000 events/s to 4 destinations where it fell
// behind (docs/performance.md).
const DefaultOutcomeLinger = 25 * time.Millisecond

// Engine delivers every push destination's due deliveries.
type Engine struct {
	workers  map[string]*worker
	order    []*worker
	handlers map[string]*handlerWorker
	outcomes *groupcommit.Outcomes
	alerts   *alerter // nil without an alert URL
	watch    Watcher  // nil without Options.Watcher
	metrics  *metrics
	logger   *slog.Logger
	lifetime context.Context // handlers' contexts derive from it
	now      func() time.Time
	poll     time.Duration
	claimers int
	stopping atomic.Bool // Run's ctx is done: nothing more is leased at ingest
}

// New returns an Engine for the push destinations of o. It returns an error
// when a destination cannot be delivered to as configured.
func New(o Options) (*Engine, error) {
	if o.Queue == nil {
		return nil, errors.New("new delivery engine: no queue")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.Claimers <= 0 {
		o.Claimers = DefaultClaimers
	}
	if o.Outcomes.MaxBatch <= 0 {
		o.Outcomes.MaxBatch = DefaultOutcomeBatch
	}
	if o.Outcomes.Linger == 0 {
		o.Outcomes.Linger = DefaultOutcomeLinger
	}
	if o.Lifetime == nil {
		o.Lifetime = context.Background()
	}
	if o.HandlerLeaseMargin <= 0 {
		o.HandlerLeaseMargin = LeaseMargin
	}
	if o.Outcomes.CommitTimeout <= 0 {
		o.Outcomes.CommitTimeout = completeTimeout
	}
	e := &Engine{
		workers:  map[string]*worker{},
		handlers: map[string]*handlerWorker{},
		logger:   o.Logger.With("component", "delivery"),
		watch:    o.Watcher,
		lifetime: o.Lifetime,
		now:      o.Now,
		poll:     o.PollInterval,
		claimers: o.Claimers,
	}
	var names []string
	for _, d := range o.Destinations {
		if d.Pull {
			continue
		}
		if _, dup := e.workers[d.Name]; dup || e.handlers[d.Name] != nil {
			return nil, fmt.Errorf("new delivery engine: destination %q listed twice", d.Name)
		}
		names = append(names, d.Name)
		if d.Handler {
			h, err := newHandlerWorker(e, o.Queue, o.Within, d, o.Handlers[d.Name], o.HandlerLeaseMargin)
			if err != nil {
				return nil, fmt.Errorf("new delivery engine: destination %q: %w", d.Name, err)
			}
			e.handlers[d.Name] = h
			continue
		}
		w, err := newWorker(e, o.Queue, d)
		if err != nil {
			return nil, fmt.Errorf("new delivery engine: destination %q: %w", d.Name, err)
		}
		e.workers[d.Name] = w
		e.order = append(e.order, w)
	}
	m, err := newMetrics(o.Registerer, names)
	if err != nil {
		return nil, fmt.Errorf("new delivery engine: %w", err)
	}
	e.metrics = m
	for _, w := range e.order {
		m.trackLeases(w.name)
	}
	if o.Alerts.URL != "" {
		if e.alerts, err = newAlerter(o.Alerts, e.logger, m); err != nil {
			return nil, fmt.Errorf("new delivery engine: %w", err)
		}
	}
	e.outcomes = groupcommit.NewOutcomes(o.Queue, o.Outcomes, e.logger)
	return e, nil
}

// Run delivers until ctx is done. It then stops claiming and starting
// handlers at once, hands back the claimed deliveries no attempt has
// started, lets the attempts in flight finish (each within its
// destination's timeout, a handler's sooner if Options.Lifetime ends) and
// record their outcomes, posts the dead-letter alerts still queued (for a
// few seconds at most), and returns. Run may be called once.
func (e *Engine) Run(ctx context.Context) error {
	alertCtx, cancelAlerts := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelAlerts()
	if e.alerts != nil {
		go e.alerts.run(alertCtx)
	}
	var wg sync.WaitGroup
	for _, w := range e.order {
		wg.Go(func() { w.run(ctx, e.claimers) })
	}
	for _, h := range e.handlers {
		wg.Go(func() { h.run(ctx) })
	}
	e.logger.Info("delivery started", "destinations", len(e.order)+len(e.handlers))
	<-ctx.Done()
	e.stopping.Store(true)
	wg.Wait()
	e.outcomes.Close()
	if e.alerts != nil {
		e.alerts.stop(cancelAlerts)
	}
	for _, w := range e.order {
		w.sender.CloseIdleConnections()
	}
	e.logger.Info("delivery stopped")
	return nil
}

// Wake tells the destination's loop that deliveries may have become due, so
// that it claims now rather than at its next poll. It does not stop
// leasing at ingest (see reserveIngest): the claim it starts takes them
// beside new events, as room allows. It never blocks; a name that is not a
// push destination of the engine is ignored.
func (e *Engine) Wake(destination string) {
	if w, ok := e.workers[destination]; ok {
		w.wakeUp()
	} else if h, ok := e.handlers[destination]; ok {
		h.wakeUp()
	}
}

// deadLetter reports a push delivery that went dead (see reportDead).
func (e *Engine) deadLetter(c store.Claim, res Result) {
	d := c.Delivery
	reportDead(e.logger, e.metrics, e.alerts, e.watch, Alert{
		DeliveryID:      d.ID,
		EventID:         d.EventID,
		ProviderEventID: c.Event.ProviderEventID,
		Source:          c.Event.Source,
		Type:            c.Event.Type,
		Destination:     d.Destination,
		Attempts:        d.Attempts,
		LastError:       res.Error,
		LastStatusCode:  res.StatusCode,
	})
}
