package store

import (
	"context"
	"time"
)

// FleetLease is a named lease as the database holds it: which process holds it
// and until when. A lease whose Until has passed is free, whoever it names.
type FleetLease struct {
	// Name is what the lease is for, such as "runner".
	Name string
	// Holder names the process that holds it, as that process claimed it.
	Holder string
	// Since is when Holder took the lease; renewals keep it.
	Since time.Time
	// Until is when the lease runs out unless Holder renews it, by the database's
	// clock.
	Until time.Time
	// Now is the database's clock when the lease was read: what Until is compared
	// with, whatever the reader's own clock says.
	Now time.Time
}

// HeldBy tells whether holder held l when it was read: l names holder and had
// not run out.
func (l FleetLease) HeldBy(holder string) bool {
	return l.Holder == holder && l.Until.After(l.Now)
}

// FleetLeases elect, among the processes that share a database, the one that
// holds a named lease: the one process of a fleet that runs what must run once
// (retention, alert evaluation). A lease is a row with a holder and an expiry,
// renewed by its holder well before it runs out; a holder that stops releases
// it, one that dies lets it run out. Expiry is decided by the database's clock
// alone, so that processes whose clocks disagree still agree on who holds it.
// The lease row needs no session of its own, so it holds through a connection
// pooler and on SQLite alike.
type FleetLeases interface {
	// ClaimFleetLease takes the lease name for holder for ttl when it is free
	// (never claimed, released or run out), renews it for ttl when holder already
	// holds it, and otherwise leaves it to its holder. It returns the lease as it
	// stands afterwards: FleetLease.HeldBy(holder) tells whether holder holds it.
	// Of any number of claims at once, at most one takes a free lease. It returns
	// an error wrapping ErrUnavailable when the database cannot be reached; the
	// lease is then as it was.
	ClaimFleetLease(ctx context.Context, name, holder string, ttl time.Duration) (FleetLease, error)

	// ReleaseFleetLease frees the lease name at once when holder holds it, so
	// that the next claim of another process takes it; it does nothing when
	// another holds it or nobody does. It returns an error wrapping
	// ErrUnavailable when the database cannot be reached.
	ReleaseFleetLease(ctx context.Context, name, holder string) error

	// ReadFleetLease returns the lease name as it stands, run out or not, or an
	// error wrapping ErrNotFound when it is not held: never claimed, or released.
	ReadFleetLease(ctx context.Context, name string) (FleetLease, error)
}
