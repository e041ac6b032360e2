package route

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// ErrStale reports that a Table has not learnt the registered handler
// destinations for longer than its MaxAge: an event routed now might miss
// one that another replica registered, so it is not routed at all.
var ErrStale = errors.New("route: the registered handler destinations are not known to be current")

// Table is the routing of a relay whose destinations change while it
// runs: those of its config, and the handler destinations that the
// replicas with their code registered in the store (see
// store.HandlerRegistry), which the relay reads again and again and sets
// with SetRegistered. A registered destination named like a configured one
// is left out: the config's wins. It is safe for concurrent use.
type Table struct {
	maxAge time.Duration
	now    func() time.Time

	mu         sync.Mutex // serializes the changes
	configured []Destination
	registered []Destination
	router     atomic.Pointer[Router]
	learnt     atomic.Int64 // unix nanoseconds of the last SetRegistered; 0 before
}

// NewTable returns a Table of the configured destinations that routes
// nothing until SetRegistered first tells it the registered ones, and
// nothing once maxAge has passed since it last did (ErrStale).
func NewTable(configured []Destination, maxAge time.Duration) (*Table, error) {
	t := &Table{maxAge: maxAge, now: time.Now}
	if err := t.SetConfigured(configured); err != nil {
		return nil, err
	}
	return t, nil
}

// SetConfigured replaces the configured destinations, as a reload does.
func (t *Table) SetConfigured(ds []Destination) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rebuild(slices.Clone(ds), t.registered)
}

// SetRegistered replaces the registered handler destinations with ds,
// learnt at at.
func (t *Table) SetRegistered(ds []Destination, at time.Time) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.rebuild(t.configured, slices.Clone(ds)); err != nil {
		return err
	}
	t.learnt.Store(at.UnixNano())
	return nil
}

// rebuild makes the router of configured and registered; t.mu is held.
func (t *Table) rebuild(configured, registered []Destination) error {
	all := slices.Clone(configured)
	for _, d := range registered {
		if !slices.ContainsFunc(configured, func(c Destination) bool { return c.Name == d.Name }) {
			all = append(all, d)
		}
	}
	r, err := New(all)
	if err != nil {
		return fmt.Errorf("route: %w", err)
	}
	t.configured, t.registered = configured, registered
	t.router.Store(r)
	return nil
}

// Lookup returns the deliveries of an event as Router.Route does, over
// the configured and the registered destinations, or ErrStale when the
// registered ones were learnt more than maxAge ago, or never.
func (t *Table) Lookup(source, eventType string, body []byte) ([]store.NewDelivery, error) {
	learnt := t.learnt.Load()
	if learnt == 0 || t.now().Sub(time.Unix(0, learnt)) > t.maxAge {
		return nil, ErrStale
	}
	return t.router.Load().Route(source, eventType, body), nil
}
