// Package route decides which destinations want an event: a destination
// subscribes to sources and to event-type globs, and may order its
// deliveries by a key read from the body.
package route

import (
	"fmt"
	"path"

	"github.com/hookrelay/hookrelay/internal/bodyfield"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Destination is what routing needs to know of one destination.
type Destination struct {
	Name string
	// Sources are the source names it subscribes to.
	Sources []string
	// Types are event-type globs in path.Match syntax ("invoice.*"); none
	// means every type.
	Types []string
	// OrderingKey is a dotted path into the JSON body, or empty.
	OrderingKey string
}

// Router maps an event to the deliveries it fans out to. It is immutable and
// safe for concurrent use.
type Router struct {
	bySource map[string][]Destination
}

// New builds a Router. It returns an error naming the destination whose type
// glob is malformed.
func New(dests []Destination) (*Router, error) {
	r := &Router{bySource: make(map[string][]Destination)}
	for _, d := range dests {
		for _, g := range d.Types {
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("destination %q: type glob %q: %w", d.Name, g, err)
			}
		}
		for _, s := range d.Sources {
			r.bySource[s] = append(r.bySource[s], d)
		}
	}
	return r, nil
}

// Route returns one delivery for every destination subscribed to source whose
// type globs match eventType, in configuration order; nil when none wants it.
func (r *Router) Route(source, eventType string, body []byte) []store.NewDelivery {
	var out []store.NewDelivery
	for _, d := range r.bySource[source] {
		if !matchesType(d.Types, eventType) {
			continue
		}
		nd := store.NewDelivery{Destination: d.Name}
		if d.OrderingKey != "" {
			nd.OrderingKey, _ = bodyfield.LookupLossy(body, d.OrderingKey)
		}
		out = append(out, nd)
	}
	return out
}

// Lookup is Route for a caller that routes through a Table or a Router
// alike: a Router's destinations are fixed, so it never fails.
func (r *Router) Lookup(source, eventType string, body []byte) ([]store.NewDelivery, error) {
	return r.Route(source, eventType, body), nil
}

func matchesType(globs []string, eventType string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := path.Match(g, eventType); ok {
			return true
		}
	}
	return false
}
