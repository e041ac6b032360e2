package hookrelay_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestHandleCannotEndItsTransaction has handlers try to end the
// transaction hookrelay hands them — by the driver's Commit or Rollback,
// or by SQL — and then return nil: Commit and Rollback refuse with
// ErrManagedTx, and every such attempt fails with that error, its writes
// rolled back where hookrelay still can, instead of being marked done.
func TestHandleCannotEndItsTransaction(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		refused := make(chan error, 4)
		ends := map[string]func(ctx context.Context, tx hookrelay.Tx) error{
			"evt_commit": func(ctx context.Context, tx hookrelay.Tx) error {
				if pg := tx.Postgres(); pg != nil {
					refused <- pg.Commit(ctx)
					return nil
				}
				return execTx(ctx, tx, "COMMIT")
			},
			"evt_rollback": func(ctx context.Context, tx hookrelay.Tx) error {
				if pg := tx.Postgres(); pg != nil {
					refused <- pg.Rollback(ctx)
					return nil
				}
				return execTx(ctx, tx, "ROLLBACK")
			},
			"evt_sql_commit": func(ctx context.Context, tx hookrelay.Tx) error { return execTx(ctx, tx, "COMMIT") },
		}
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(1), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				if err := insertEffect(ctx, tx, ev, "written"); err != nil {
					return err
				}
				_ = ends[ev.ProviderEventID](ctx, tx) // ignored, as a careless handler would
				return nil
			})
		})
		for id := range ends {
			b.mustPost(t, stripeEvent(id, "checkout.session.completed", "ord_"+id, time.Now()))
		}
		for id := range ends {
			d := b.waitStatus(t, id, "orders", "dead")
			if !strings.Contains(d.LastError, hookrelay.ErrManagedTx.Error()) {
				t.Errorf("%s: last error %q, want ErrManagedTx's text", id, d.LastError)
			}
		}
		// SQL that ends the transaction cannot be refused: what it
		// committed stays, yet the delivery is not marked done with it.
		// Refused, pgx's Commit and Rollback left the writes to hookrelay,
		// which rolled them back.
		committed := []string{"evt_commit", "evt_sql_commit"}
		if drv.Name == "postgres" {
			for range 2 {
				if err := <-refused; !errors.Is(err, hookrelay.ErrManagedTx) {
					t.Errorf("Commit or Rollback = %v, want ErrManagedTx", err)
				}
			}
			committed = committed[1:]
		}
		if got := b.app.strings(t, `SELECT event_id FROM effects ORDER BY event_id`); !slices.Equal(got, committed) {
			t.Errorf("effects = %v, want %v: those SQL committed", got, committed)
		}
	})
}

// TestHandleNestedTransactions checks that a handler still nests
// transactions: a savepoint rolled back undoes its writes alone, one
// released keeps them, and the handler's transaction commits as usual.
func TestHandleNestedTransactions(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(1), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				if pg := tx.Postgres(); pg != nil {
					for _, keep := range []bool{false, true} {
						inner, err := pg.Begin(ctx)
						if err != nil {
							return err
						}
						if _, err := inner.Exec(ctx, `INSERT INTO effects (event_id, note) VALUES ($1, $2)`, ev.ProviderEventID, fmt.Sprint(keep)); err != nil {
							return err
						}
						end := inner.Rollback
						if keep {
							end = inner.Commit
						}
						if err := end(ctx); err != nil {
							return err
						}
					}
				} else {
					for _, stmt := range []string{
						`SAVEPOINT dropped`, `INSERT INTO effects (event_id, note) VALUES ('evt_nested', 'false')`, `ROLLBACK TO dropped`, `RELEASE dropped`,
						`SAVEPOINT kept`, `INSERT INTO effects (event_id, note) VALUES ('evt_nested', 'true')`, `RELEASE kept`,
					} {
						if err := execTx(ctx, tx, stmt); err != nil {
							return err
						}
					}
				}
				return insertEffect(ctx, tx, ev, "outer")
			})
		})
		b.mustPost(t, stripeEvent("evt_nested", "checkout.session.completed", "ord_n", time.Now()))
		b.waitStatus(t, "evt_nested", "orders", "done")
		if got := b.app.strings(t, `SELECT note FROM effects ORDER BY note`); !slices.Equal(got, []string{"outer", "true"}) {
			t.Errorf("effects = %v, want the released savepoint's and the handler's", got)
		}
	})
}

// TestHandleSQLiteTxIsNotSQLTx checks that a SQLite handler cannot reach
// the *sql.Tx behind its transaction, nor any Commit or Rollback.
func TestHandleSQLiteTxIsNotSQLTx(t *testing.T) {
	t.Parallel()
	checked := make(chan string, 1)
	drv := testdb.Drivers()[0]
	b := setup(t, drv, func(r *hookrelay.Relay) {
		r.Handle(orders(1), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
			var problems []string
			if _, ok := tx.SQLite().(*sql.Tx); ok {
				problems = append(problems, "it is a *sql.Tx")
			}
			if _, ok := tx.SQLite().(interface{ Commit() error }); ok {
				problems = append(problems, "it has Commit")
			}
			if _, ok := tx.SQLite().(interface{ Rollback() error }); ok {
				problems = append(problems, "it has Rollback")
			}
			if tx.Postgres() != nil {
				problems = append(problems, "Postgres is set too")
			}
			checked <- strings.Join(problems, ", ")
			return nil
		})
	})
	b.mustPost(t, stripeEvent("evt_sqlite_tx", "checkout.session.completed", "ord_q", time.Now()))
	if p := <-checked; p != "" {
		t.Errorf("the handler's SQLite transaction: %s", p)
	}
}

// execTx runs one statement in the handler's transaction, whichever the
// database.
func execTx(ctx context.Context, tx hookrelay.Tx, query string) error {
	if pg := tx.Postgres(); pg != nil {
		_, err := pg.Exec(ctx, query)
		return err
	}
	_, err := tx.SQLite().ExecContext(ctx, query)
	return err
}
