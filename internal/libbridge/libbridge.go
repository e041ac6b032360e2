// Package libbridge hands package hookrelaytest what package hookrelay
// keeps unexported: the handler's transaction, guarded as a Relay guards
// it, and the relay's own reading of a Relay's configuration and of a
// Destination. hookrelaytest so runs handlers, routes and signs as a
// Relay does, without a copy of the code and without widening hookrelay's
// API with names an application has no use for.
//
// Package hookrelay sets the bridge once, in its init; hookrelaytest,
// which imports hookrelay, gets it. This package cannot name hookrelay's
// types (hookrelay imports it), so the bridge's are type parameters: Set
// and Get must be instantiated with the same ones.
package libbridge

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/config"
)

// Bridge is what package hookrelay hands package hookrelaytest; Relay,
// Destination and Tx are hookrelay's types of those names.
type Bridge[Relay, Destination, Tx any] struct {
	// Guard runs fn with the handler's view of the driver's transaction tx
	// (a pgx.Tx or a *sql.Tx) and fails, whatever fn returns, when fn
	// tried to end tx: hookrelay's guard, which every handler runs in.
	Guard func(ctx context.Context, tx any, fn func(Tx) error) error
	// Config returns the relay's configuration of r, as Start builds it:
	// its Config, Config.File included, and its handler destinations.
	Config func(r *Relay) (*config.Config, error)
	// Destination returns d as the relay's destination, its defaults
	// applied.
	Destination func(d Destination) config.Destination
}

// bridge is set by Set, at package hookrelay's init.
var bridge any

// Set hands b to package hookrelaytest. Package hookrelay calls it in its
// init.
func Set[Relay, Destination, Tx any](b Bridge[Relay, Destination, Tx]) { bridge = b }

// Get returns the Bridge Set was given. It panics when Set was not called
// with the same type parameters, a mistake no build of hookrelaytest can
// run with.
func Get[Relay, Destination, Tx any]() Bridge[Relay, Destination, Tx] {
	b, ok := bridge.(Bridge[Relay, Destination, Tx])
	if !ok {
		panic(fmt.Sprintf("libbridge: Get[%T] of a bridge of type %T", b, bridge))
	}
	return b
}
