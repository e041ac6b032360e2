package hookrelay

import (
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/libbridge"
)

// Package hookrelaytest runs handlers, routes and signs as a Relay does,
// through what this init hands it (see internal/libbridge).
func init() {
	libbridge.Set(libbridge.Bridge[Relay, Destination, Tx]{
		Guard:       guard,
		Config:      (*Relay).configured,
		Destination: Destination.internal,
	})
}

// configured returns r's configuration as Start builds it.
func (r *Relay) configured() (*config.Config, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return internalConfig(r.cfg, r.handlers)
}
