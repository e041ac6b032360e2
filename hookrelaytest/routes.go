package hookrelaytest

import (
	"fmt"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/relay"
)

// Routes returns the names of the destinations ev fans out to on r — its
// handler destinations and the push and pull destinations of its
// Config.File — in the order a Relay creates their deliveries. The
// relay's own routing decides, from ev.Source, ev.Type and ev.Body (for a
// destination's ordering key); ev.Type is the type the source's scheme
// reads: for Stripe the body's "type", for GitHub the X-GitHub-Event
// header. r need not be started: New and Handle are enough. Routes
// returns the error Start would for a configuration it refuses.
//
// On a database that other replicas share, a Relay also fans out to the
// handler destinations they registered; Routes knows r's own alone.
func Routes(r *hookrelay.Relay, ev hookrelay.Event) ([]string, error) {
	cfg, err := bridge.Config(r)
	if err != nil {
		return nil, fmt.Errorf("hookrelaytest: %w", err)
	}
	router, err := relay.Router(cfg)
	if err != nil {
		return nil, fmt.Errorf("hookrelaytest: %w", err)
	}
	var names []string
	for _, d := range router.Route(ev.Source, ev.Type, ev.Body) {
		names = append(names, d.Destination)
	}
	return names, nil
}
