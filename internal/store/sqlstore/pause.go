package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	listPaused = `SELECT destination, paused_at FROM hookrelay.paused_destinations`

	insertPaused = `INSERT INTO hookrelay.paused_destinations (destination, paused_at, actor) VALUES (?, ?, ?)
ON CONFLICT (destination) DO NOTHING`

	deletePaused = `DELETE FROM hookrelay.paused_destinations WHERE destination = ?`
)

// SetPaused pauses or resumes destination and writes the audit row, in one
// transaction. A resume notifies the workers of every listening process
// (see Dialect.Notify), as new deliveries do, so that they claim again at
// once.
func (o *Ops) SetPaused(ctx context.Context, destination string, paused bool, actor string, now time.Time) error {
	kind := store.AuditResume
	if paused {
		kind = store.AuditPause
	}
	what := kind + " " + destination
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	err = o.b.InTx(ctx, func(tx Conn) error {
		var err error
		if paused {
			_, err = tx.Exec(ctx, insertPaused, destination, o.b.Dialect.Time(now), actor)
		} else {
			_, err = tx.Exec(ctx, deletePaused, destination)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, insertAction, o.b.Dialect.Time(now), actor, AuditDestination(destination), kind); err != nil {
			return err
		}
		if !paused {
			return o.notify(ctx, tx, []string{destination})
		}
		return nil
	})
	pauses.Add(1) // whatever the outcome: the caches read the set again
	if err != nil {
		return o.fail(ctx, what, err)
	}
	return nil
}

// Paused returns the paused destinations and since when each is paused.
func (o *Ops) Paused(ctx context.Context) (map[string]time.Time, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("paused destinations: %w", err)
	}
	defer release()
	return o.readPaused(ctx)
}

// readPaused is Paused within a call that has entered.
func (o *Ops) readPaused(ctx context.Context) (map[string]time.Time, error) {
	rows, err := o.b.Read.Query(ctx, listPaused)
	if err != nil {
		return nil, o.fail(ctx, "paused destinations", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var (
			name string
			at   time.Time
		)
		if err := rows.Scan(&name, At(&at)); err != nil {
			return nil, o.fail(ctx, "paused destinations", err)
		}
		out[name] = at
	}
	if err := rows.Err(); err != nil {
		return nil, o.fail(ctx, "paused destinations", err)
	}
	return out, nil
}
