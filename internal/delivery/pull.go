package delivery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Bounds of a pull claim.
const (
	// ClaimLease is how long a claimed delivery is held before it returns
	// to the queue by itself, unless the claim asks for another lease
	// between MinClaimLease and MaxClaimLease.
	ClaimLease    = 60 * time.Second
	MinClaimLease = 20 * time.Second
	MaxClaimLease = 10 * time.Minute
	// claimPoll is how often a waiting claim looks at the queue when
	// nothing wakes it: work created by another process (an ingest, a
	// failed delivery coming due) wakes nobody here.
	claimPoll = 250 * time.Millisecond
	// deadEventTimeout bounds reading the event of a failed or dead
	// delivery, for what reports it.
	deadEventTimeout = 10 * time.Second
)

// EventReader reads what a Puller needs of the event log: a delivery's row
// when its consumer acknowledges it, and a dead letter's event.
type EventReader interface {
	// EventDeliveries returns the deliveries of one event.
	EventDeliveries(ctx context.Context, eventID string) ([]store.Delivery, error)
	// GetEvent returns one event, or store.ErrNotFound.
	GetEvent(ctx context.Context, id string) (store.Event, error)
}

// PullerOptions configure a Puller.
type PullerOptions struct {
	// Queue is the store's delivery queue.
	Queue store.Queue
	// Events reads delivery rows and events; usually the same store.
	Events EventReader
	// Destinations names the pull destinations, whose metric series are
	// set to zero from the start.
	Destinations []string
	// Alerts, when its URL is set, receives one POST per dead delivery,
	// as the engine's does.
	Alerts config.Alerts
	// Logger receives the Puller's logs; nil discards them.
	Logger *slog.Logger
	// Registerer receives the metrics, shared with the engine's when it is
	// the same registry; nil registers none.
	Registerer prometheus.Registerer
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// Puller is the relay's half of pull delivery: consumers claim due
// deliveries of a pull destination over the admin API and acknowledge each
// with its outcome. It holds what the engine holds for a push: the retry
// policy, dead letters with their alert and metrics, and the byte budget of
// the claimed bodies. It is safe for concurrent use, and outlives config
// reloads: the destination's settings come with each call.
type Puller struct {
	queue   store.Queue
	events  EventReader
	logger  *slog.Logger
	now     func() time.Time
	metrics *metrics
	budget  *byteBudget
	waiting *signals
	watch   Watcher // nil until SetWatcher

	mu     sync.Mutex // guards alerts against Close
	alerts *alerter   // nil without an alert URL, and once closed
	stop   context.CancelFunc
}

// NewPuller returns a Puller over o's queue. Its alerts are posted from a
// goroutine of its own until Close.
func NewPuller(o PullerOptions) (*Puller, error) {
	if o.Queue == nil || o.Events == nil {
		return nil, errors.New("new puller: no queue or no event reader")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	m, err := newMetrics(o.Registerer, nil)
	if err != nil {
		return nil, fmt.Errorf("new puller: %w", err)
	}
	for _, d := range o.Destinations {
		m.track(d)
	}
	p := &Puller{
		queue:   o.Queue,
		events:  o.Events,
		logger:  o.Logger.With("component", "pull"),
		now:     o.Now,
		metrics: m,
		budget:  claimsInFlight,
		waiting: newSignals(),
		stop:    func() {},
	}
	if o.Alerts.URL != "" {
		a, err := newAlerter(o.Alerts, p.logger, m)
		if err != nil {
			return nil, fmt.Errorf("new puller: %w", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		p.alerts, p.stop = a, cancel
		go p.alerts.run(ctx)
	}
	return p, nil
}

// Close posts the dead-letter alerts still queued, for a few seconds at
// most, and stops posting: a delivery that goes dead later is logged and
// counted, not alerted. It is safe to call more than once.
func (p *Puller) Close() {
	p.mu.Lock()
	a := p.alerts
	p.alerts = nil
	p.mu.Unlock()
	if a != nil {
		a.stop(p.stop)
	}
}

// SetWatcher makes w be told of every failed attempt and dead delivery
// the Puller records from now on. Call it before the Puller serves its
// first claim.
func (p *Puller) SetWatcher(w Watcher) { p.watch = w }

// Wake tells the claims waiting on destination that it may have new due
// work, so that they look now rather than at their next poll.
func (p *Puller) Wake(destination string) { p.waiting.notify(destination) }

// attemptFailed reports an acknowledged attempt of d recorded as failed,
// by c: to the watcher, and as a dead letter when it was the last, as the
// engine reports a pushed one. The event is read for its source, type and
// provider id only when either needs them.
func (p *Puller) attemptFailed(d store.Delivery, c store.Completion) {
	dead := c.Status == store.StatusDead
	if !dead && p.watch == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadEventTimeout)
	defer cancel()
	ev, err := p.events.GetEvent(ctx, d.EventID)
	if err != nil {
		ev = store.Event{}
		p.logger.Warn("read failed delivery's event; what reports it names the delivery only", keyDeliveryID, d.ID, keyEventID, d.EventID, keyError, err)
	}
	if p.watch != nil {
		p.watch.AttemptFailed(failedAttemptOf(ev, d, c))
	}
	if !dead {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock() // enqueue never blocks
	reportDead(p.logger, p.metrics, p.alerts, p.watch, Alert{
		DeliveryID: d.ID, EventID: d.EventID, ProviderEventID: ev.ProviderEventID, Source: ev.Source, Type: ev.Type,
		Destination: d.Destination, Attempts: d.Attempts, LastError: c.Attempt.Error, LastStatusCode: c.Attempt.StatusCode,
	})
}
