package hookrelay_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestHandleTimeoutFailsTheAttempt has a handler run past its Timeout,
// after a write: the attempt fails with the context's error, its write
// rolled back — and not with ErrManagedTx, although on SQLite
// database/sql rolls the transaction back itself as the context ends.
func TestHandleTimeoutFailsTheAttempt(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		b := setup(t, drv, func(r *hookrelay.Relay) {
			d := orders(1)
			d.Timeout = 500 * time.Millisecond
			r.Handle(d, func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				if err := insertEffect(ctx, tx, ev, "written"); err != nil {
					return err
				}
				<-ctx.Done()
				return ctx.Err()
			})
		})
		b.mustPost(t, stripeEvent("evt_slow", "checkout.session.completed", "ord_1", time.Now()))
		d := b.waitStatus(t, "evt_slow", "orders", "dead")
		if !strings.Contains(d.LastError, context.DeadlineExceeded.Error()) || strings.Contains(d.LastError, hookrelay.ErrManagedTx.Error()) {
			t.Errorf("last error %q, want the context's deadline and not ErrManagedTx", d.LastError)
		}
		if got := b.app.strings(t, `SELECT event_id FROM effects`); len(got) != 0 {
			t.Errorf("effects = %v, want none: the write rolled back", got)
		}
	})
}
