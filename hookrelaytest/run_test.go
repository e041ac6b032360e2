package hookrelaytest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/hookrelaytest"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestRunOutcomes runs a handler that writes to the application's table
// and then returns each result a handler can, on both drivers: the outcome
// is the one the relay records, and the write is there afterwards exactly
// when the relay would have committed it.
func TestRunOutcomes(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	orders := hookrelay.Destination{Name: "orders", Sources: []string{"stripe"}, MaxAttempts: 3, Backoff: []time.Duration{time.Minute}}
	for _, tt := range []struct {
		name    string
		attempt int                                              // the event's Attempt; 0 leaves NewEvent's
		timeout time.Duration                                    // the destination's Timeout; 0 leaves the default
		then    func(ctx context.Context, tx hookrelay.Tx) error // after the write
		want    hookrelaytest.Outcome
		err     func(error) bool
		kept    bool // the write is committed
	}{
		{name: "nil is done", then: func(context.Context, hookrelay.Tx) error { return nil },
			want: hookrelaytest.Done, err: isNil, kept: true},
		{name: "a wrapped Skip is skipped", then: func(context.Context, hookrelay.Tx) error { return fmt.Errorf("stale: %w", hookrelay.Skip) },
			want: hookrelaytest.Skipped, err: is(hookrelay.Skip), kept: true},
		{name: "an error fails the attempt", then: func(context.Context, hookrelay.Tx) error { return boom },
			want: hookrelaytest.Failed, err: is(boom)},
		{name: "an error on the last attempt is dead", attempt: 3, then: func(context.Context, hookrelay.Tx) error { return boom },
			want: hookrelaytest.Dead, err: is(boom)},
		{name: "Permanent is dead at once", then: func(context.Context, hookrelay.Tx) error {
			return fmt.Errorf("no order: %w", hookrelay.Permanent(boom))
		},
			want: hookrelaytest.Dead, err: is(boom)},
		{name: "Snooze is snoozed", then: func(context.Context, hookrelay.Tx) error { return hookrelay.Snooze(time.Hour) },
			want: hookrelaytest.Snoozed, err: isNotNil},
		{name: "a panic fails the attempt", then: func(context.Context, hookrelay.Tx) error { panic("oops") },
			want: hookrelaytest.Failed, err: func(err error) bool { return err != nil && err.Error() == "handler panicked: oops" }},
		{name: "ending the transaction fails the attempt", then: endTx,
			want: hookrelaytest.Failed, err: is(hookrelay.ErrManagedTx)},
		{name: "the context ends at the timeout", timeout: 500 * time.Millisecond, then: func(ctx context.Context, _ hookrelay.Tx) error { <-ctx.Done(); return ctx.Err() },
			want: hookrelaytest.Failed, err: is(context.DeadlineExceeded)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			eachDriver(t, func(t *testing.T, a *app) {
				d := orders
				d.Timeout = tt.timeout
				var seen hookrelay.Event
				h := hookrelaytest.NewHandler(a.db(), d, func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
					seen = ev
					if err := record(ctx, tx, ev, "written"); err != nil {
						return err
					}
					return tt.then(ctx, tx)
				})
				ev := hookrelaytest.NewEvent("stripe", "invoice.paid", map[string]any{"id": "evt_1", "type": "invoice.paid"})
				if tt.attempt > 0 {
					ev.Attempt = tt.attempt
				}
				res, err := h.Run(context.Background(), ev)
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if res.Outcome != tt.want || !tt.err(res.Err) {
					t.Errorf("Run = %+v, want outcome %s", res, tt.want)
				}
				var want []string
				if tt.kept {
					want = []string{"evt_1 written"}
				}
				if got := a.effects(t); !slices.Equal(got, want) {
					t.Errorf("effects after %s: %q, want %q", res.Outcome, got, want)
				}
				if seen.Destination != "orders" || seen.Attempt != max(tt.attempt, 1) || seen.ProviderEventID != "evt_1" {
					t.Errorf("the handler saw destination %q, attempt %d, provider id %q; want orders, %d, evt_1",
						seen.Destination, seen.Attempt, seen.ProviderEventID, max(tt.attempt, 1))
				}
				switch res.Outcome {
				case hookrelaytest.Snoozed:
					if res.SnoozedFor != time.Hour {
						t.Errorf("SnoozedFor = %s, want 1h", res.SnoozedFor)
					}
				case hookrelaytest.Failed:
					// The backoff's first step, one minute, spread by the relay's jitter.
					if res.RetryIn < 45*time.Second || res.RetryIn > 75*time.Second {
						t.Errorf("RetryIn = %s, want about the backoff's 1m", res.RetryIn)
					}
				}
			})
		})
	}
}

// endTx ends the handler's transaction as a handler must not: with the
// pgx.Tx's Commit on PostgreSQL, with a ROLLBACK statement on SQLite.
func endTx(ctx context.Context, tx hookrelay.Tx) error {
	if pg := tx.Postgres(); pg != nil {
		_ = pg.Commit(ctx)
		return nil
	}
	_, _ = tx.SQLite().ExecContext(ctx, "ROLLBACK")
	return nil
}

func isNil(err error) bool    { return err == nil }
func isNotNil(err error) bool { return err != nil }

func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// TestRunInsideTheTestsTransaction runs handlers inside a transaction of
// the test, as a test that rolls everything back at its end does: the
// writes of one that succeeded are seen in that transaction, those of one
// that failed are not, and none outlives it. PostgreSQL only: pgx nests a
// transaction in a savepoint; database/sql does not.
func TestRunInsideTheTestsTransaction(t *testing.T) {
	t.Parallel()
	a := openApp(t, testdb.PostgresURL(t))
	ctx := context.Background()
	outer, err := a.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := hookrelaytest.NewHandler(hookrelaytest.Postgres(outer), hookrelay.Destination{Name: "orders"},
		func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
			if err := record(ctx, tx, ev, "written"); err != nil {
				return err
			}
			if ev.Type == "fail" {
				return errors.New("boom")
			}
			return nil
		})
	for _, typ := range []string{"ok", "fail"} {
		if _, err := h.Run(ctx, hookrelaytest.NewEvent("stripe", typ, map[string]string{"id": "evt_" + typ})); err != nil {
			t.Fatal(err)
		}
	}
	rows, _ := outer.Query(ctx, `SELECT event_id FROM effects`)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"evt_ok"}) {
		t.Errorf("the test's transaction sees %q, want the write of the handler that succeeded", got)
	}
	if err := outer.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := a.effects(t); len(got) != 0 {
		t.Errorf("effects after the test's rollback: %q, want none", got)
	}
}
