package hookrelaytest

import (
	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/libbridge"
)

// bridge is what package hookrelay hands this package: its guard, its
// reading of a Relay's configuration and of a Destination.
var bridge = libbridge.Get[hookrelay.Relay, hookrelay.Destination, hookrelay.Tx]()
