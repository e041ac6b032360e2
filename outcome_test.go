package hookrelay_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestHandlePermanentIsDeadAtOnce checks that a handler's permanent
// failure rolls its writes back and leaves the delivery dead after that
// one attempt, with its text, however many attempts it had left.
func TestHandlePermanentIsDeadAtOnce(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		var calls atomic.Int32
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(5), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				calls.Add(1)
				if err := insertEffect(ctx, tx, ev, "never"); err != nil {
					return err
				}
				return fmt.Errorf("look up order: %w", hookrelay.Permanent(errors.New("order ord_p does not exist")))
			})
		})
		b.mustPost(t, stripeEvent("evt_permanent", "checkout.session.completed", "ord_p", time.Now()))
		d := b.waitStatus(t, "evt_permanent", "orders", "dead")
		// A wrong second call would follow the first at the 10ms backoff.
		testkit.Consistently(t, 100*time.Millisecond, "no call after the permanent failure", func() error {
			return testkit.Check(calls.Load() == 1, "%d calls", calls.Load())
		})
		const text = "look up order: order ord_p does not exist"
		if d.Attempts != 1 || d.LastError != text || len(d.AttemptLog) != 1 || d.AttemptLog[0].Error != text {
			t.Errorf("delivery = %+v, want dead after 1 attempt with %q", d, text)
		}
		if got := b.app.strings(t, `SELECT note FROM effects`); len(got) != 0 {
			t.Errorf("effects = %v, want none", got)
		}
	})
}

// TestHandleSnoozeIsNotAnAttempt has a handler snooze an event twice
// before it handles it: each snooze rolls back, waits its time rather than
// the backoff, and counts no attempt, so that the event is done after one
// attempt, which the handler saw as its first each time. Another event,
// snoozed for an hour, shows meanwhile as it was: pending, not yet
// attempted, due in an hour.
func TestHandleSnoozeIsNotAnAttempt(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		const snooze = 200 * time.Millisecond
		var (
			mu    sync.Mutex
			calls []time.Time
			seen  []int // ev.Attempt of each call
		)
		dest := orders(2) // two snoozes would use both attempts were they counted
		dest.Backoff = []time.Duration{time.Hour}
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(dest, func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				if ev.ProviderEventID == "evt_later" {
					return hookrelay.Snooze(time.Hour)
				}
				mu.Lock()
				calls, seen = append(calls, time.Now()), append(seen, ev.Attempt)
				n := len(calls)
				mu.Unlock()
				if err := insertEffect(ctx, tx, ev, fmt.Sprint("call ", n)); err != nil {
					return err
				}
				if n <= 2 {
					return fmt.Errorf("order not created yet: %w", hookrelay.Snooze(snooze))
				}
				return nil
			})
		})
		b.mustPost(t, stripeEvent("evt_later", "checkout.session.completed", "ord_l", time.Now()))
		b.mustPost(t, stripeEvent("evt_snooze", "checkout.session.completed", "ord_s", time.Now()))
		d := b.waitStatus(t, "evt_snooze", "orders", "done")
		if d.Attempts != 1 || len(d.AttemptLog) != 1 || d.AttemptLog[0].Error != "" {
			t.Errorf("delivery = %+v, want done by its one attempt", d)
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(seen, []int{1, 1, 1}) {
			t.Errorf("the handler saw attempts %v, want 1 each time", seen)
		}
		for i := 1; i < len(calls); i++ {
			if gap := calls[i].Sub(calls[i-1]); gap < snooze {
				t.Errorf("call %d came %s after the one before, within its %s snooze", i+1, gap, snooze)
			}
		}
		if got := b.app.strings(t, `SELECT note FROM effects`); !slices.Equal(got, []string{"call 3"}) {
			t.Errorf("effects = %v, want only the third call's", got)
		}

		var ev struct {
			Deliveries []struct {
				Status        string    `json:"status"`
				Attempts      int       `json:"attempts"`
				NextAttemptAt time.Time `json:"next_attempt_at"`
				AttemptLog    []any     `json:"attempt_log"`
			} `json:"deliveries"`
		}
		testkit.Eventually(t, 10*time.Second, "the hour-long snooze to be recorded", func() error {
			b.adminCall(t, http.MethodGet, "/api/v1/events/"+b.eventID(t, "evt_later"), "", &ev)
			return testkit.Check(len(ev.Deliveries) == 1 && time.Until(ev.Deliveries[0].NextAttemptAt) > 50*time.Minute,
				"%+v", ev.Deliveries)
		})
		if d := ev.Deliveries[0]; d.Status != "pending" || d.Attempts != 0 || len(d.AttemptLog) != 0 {
			t.Errorf("snoozed delivery = %+v, want pending, no attempt", d)
		}
	})
}
