package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

var _ store.FleetLeases = (*Ops)(nil)

const (
	// claimLease takes the lease ?1 for holder ?2 at ?3, the database's
	// clock, until ?4 when it is free — no row, or one run out by ?3 —
	// or already ?2's, which renews it; a renewal of a lease that had not
	// run out keeps its acquired_at. (The SET expressions read the row as
	// it was before the update.)
	//
	// Two claims of a free lease never both take it. On PostgreSQL the
	// second to reach the row waits for the first's lock, then ON
	// CONFLICT re-reads the row the first committed and checks the WHERE
	// against it: held by another and not run out, so it changes
	// nothing. On SQLite one writer runs at a time.
	claimLease = `INSERT INTO hookrelay.fleet_leases AS l (name, holder, acquired_at, expires_at) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (name) DO UPDATE SET
	holder = excluded.holder,
	acquired_at = CASE WHEN l.holder = excluded.holder AND l.expires_at > excluded.acquired_at
		THEN l.acquired_at ELSE excluded.acquired_at END,
	expires_at = excluded.expires_at
WHERE l.holder = excluded.holder OR l.expires_at <= excluded.acquired_at`

	selectLease = `SELECT name, holder, acquired_at, expires_at FROM hookrelay.fleet_leases WHERE name = ?`

	releaseLease = `DELETE FROM hookrelay.fleet_leases WHERE name = ? AND holder = ?`
)

// now reads the clock that decides when a lease runs out: the database's
// where the dialect has one, else the process's (see Dialect.Now), in the
// stored precision.
func (o *Ops) now(ctx context.Context, c Conn) (time.Time, error) {
	if o.b.Dialect.Now == "" {
		return time.Now().UTC().Truncate(time.Microsecond), nil
	}
	var now time.Time
	if err := c.QueryRow(ctx, o.b.Dialect.Now).Scan(At(&now)); err != nil {
		return time.Time{}, err
	}
	return now, nil
}

// ClaimFleetLease takes, renews or leaves the lease name, in one transaction
// that reads the clock, claims and reads the lease back.
func (o *Ops) ClaimFleetLease(ctx context.Context, name, holder string, ttl time.Duration) (store.FleetLease, error) {
	const what = "claim lease"
	release, err := o.enter()
	if err != nil {
		return store.FleetLease{}, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	d := o.b.Dialect
	var l store.FleetLease
	err = o.b.InTx(ctx, func(tx Conn) error {
		now, err := o.now(ctx, tx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, claimLease, name, holder, d.Time(now), d.Time(now.Add(ttl))); err != nil {
			return err
		}
		l, err = scanLease(tx.QueryRow(ctx, selectLease, name))
		l.Now = now
		return err
	})
	if err != nil {
		return store.FleetLease{}, o.fail(ctx, what, err)
	}
	return l, nil
}

// ReleaseFleetLease deletes the lease name when holder holds it.
func (o *Ops) ReleaseFleetLease(ctx context.Context, name, holder string) error {
	const what = "release lease"
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	if _, err := o.b.Write.Exec(ctx, releaseLease, name, holder); err != nil {
		return o.fail(ctx, what, err)
	}
	return nil
}

// ReadFleetLease reads the clock and the lease name.
func (o *Ops) ReadFleetLease(ctx context.Context, name string) (store.FleetLease, error) {
	const what = "read lease"
	release, err := o.enter()
	if err != nil {
		return store.FleetLease{}, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	now, err := o.now(ctx, o.b.Read)
	if err != nil {
		return store.FleetLease{}, o.fail(ctx, what, err)
	}
	l, err := scanLease(o.b.Read.QueryRow(ctx, selectLease, name))
	if err != nil {
		return store.FleetLease{}, o.fail(ctx, what, err)
	}
	l.Now = now
	return l, nil
}

func scanLease(row Row) (store.FleetLease, error) {
	var l store.FleetLease
	err := row.Scan(&l.Name, &l.Holder, At(&l.Since), At(&l.Until))
	return l, err
}
