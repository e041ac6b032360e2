package store

import (
	"context"
	"errors"
)

// ErrNotSupported reports a call to an optional capability that the driver
// declares it does not have (see DB.SupportsListener).
var ErrNotSupported = errors.New("store: not supported by this driver")

// DB is everything a storage driver provides: the one type a driver
// implements and storeopen.Open returns. Each driver asserts at compile
// time that it implements DB, so a driver that forgets a method does not
// build.
//
// Consumers take the narrowest interface they use (Store, Queue,
// Operations, ...), never DB when less will do, and never find a capability
// by type assertion. A capability not every driver has is declared by a
// method that says whether it is supported; the capability's own methods
// are present on every driver and fail with ErrNotSupported where it is
// not.
type DB interface {
	Store
	Queue
	TxCompleter
	Operations
	Search
	Signals
	MigrationStatus
	Activity
	Listener
	Health
	Erasure
	PayloadKeys
	Transfer
	HandlerRegistry
	Fleet
	Jobs
	ConsoleSessions
	FleetLeases
	FleetAlerts
	Partitions

	// SupportsListener tells whether Listen delivers notifications: true
	// on PostgreSQL, false on SQLite, where one process owns the database
	// and the receiver wakes the delivery engine itself.
	SupportsListener() bool
}

// Listener tells a process when deliveries were created, by this process
// or another.
type Listener interface {
	// Listen delivers the name of each destination that an Ingest gave new
	// deliveries, as soon as the Ingest commits; an empty name means
	// notifications may have been lost and every destination should be
	// looked at. The channel is closed when ctx is done or the store is
	// closed. It fails with ErrNotSupported on a driver whose
	// SupportsListener is false, and with ErrUnavailable when the database
	// cannot be reached or the store is closed.
	Listen(ctx context.Context) (<-chan string, error)
}

// Health is what a liveness check asks of the store.
type Health interface {
	// Fatal returns the failure that only reopening the database recovers
	// from (on SQLite a failed fsync of the WAL, or a database file
	// removed or replaced while the process runs), or nil. After Close it
	// returns an error wrapping ErrUnavailable: a closed store too needs
	// reopening.
	Fatal() error
}
