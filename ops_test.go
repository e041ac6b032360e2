package hookrelay_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// The operations methods, driven as an application drives them: through
// the Relay alone, never the admin API.

// waitDelivery waits until the delivery of providerID to destination has
// status want, as ListDeliveries lists it, and returns it.
func waitDelivery(t *testing.T, r *hookrelay.Relay, providerID, destination string, want hookrelay.DeliveryStatus) hookrelay.DeliverySummary {
	t.Helper()
	var got hookrelay.DeliverySummary
	testkit.Eventually(t, 15*time.Second, fmt.Sprintf("the delivery of %s to %s to be %s", providerID, destination, want), func() error {
		page, err := r.ListDeliveries(t.Context(), hookrelay.EventQuery{IDPrefix: providerID, EventFilter: hookrelay.EventFilter{Destination: destination}})
		if err != nil {
			return err
		}
		if len(page.Deliveries) != 1 {
			return fmt.Errorf("%d deliveries listed", len(page.Deliveries))
		}
		got = page.Deliveries[0]
		return testkit.Check(got.Status == want, "it is %+v", got)
	})
	return got
}

// waitEffects waits until the application's table holds n effects, and
// returns their notes in order.
func waitEffects(t *testing.T, b *bundle, n int) []string {
	t.Helper()
	testkit.Eventually(t, 15*time.Second, fmt.Sprintf("%d effects", n), func() error {
		got := b.app.strings(t, `SELECT note FROM effects`)
		return testkit.Check(len(got) >= n, "effects %v", got)
	})
	got := b.app.strings(t, `SELECT note FROM effects ORDER BY note`)
	if len(got) != n {
		t.Fatalf("effects = %v, want %d", got, n)
	}
	return got
}

// TestOpsReplayRerunsHandler replays a handled event by id (a dry run
// first, which changes nothing), then by filter as a job the application
// waits for: the handler runs once more each time, and the event shows
// its delivery's replays and attempts.
func TestOpsReplayRerunsHandler(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(3), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				return insertEffect(ctx, tx, ev, fmt.Sprint("replay ", ev.ReplayCount))
			})
		})
		ctx := t.Context()
		b.mustPost(t, stripeEvent("evt_ops_replay", "checkout.session.completed", "ord_20", time.Now()))
		d := waitDelivery(t, b.relay, "evt_ops_replay", "orders", hookrelay.StatusDone)
		one := hookrelay.ReplayRequest{EventIDs: []string{d.EventID}, EventFilter: hookrelay.EventFilter{Destination: "orders"}}

		dry := one
		dry.DryRun = true
		if res, err := b.relay.Replay(ctx, dry); err != nil || res != (hookrelay.ReplayResult{Matched: 1, DryRun: true}) {
			t.Fatalf("dry run = %+v, %v; want 1 matched, none re-armed", res, err)
		}
		res, err := b.relay.Replay(hookrelay.WithActor(ctx, "ops-alice"), one)
		if err != nil || res.Matched != 1 || res.Rearmed != 1 {
			t.Fatalf("replay = %+v, %v; want 1 re-armed", res, err)
		}
		waitEffects(t, b, 2)
		waitDelivery(t, b.relay, "evt_ops_replay", "orders", hookrelay.StatusDone)

		job, err := b.relay.StartReplay(ctx, hookrelay.ReplayRequest{EventFilter: hookrelay.EventFilter{Source: "stripe", Destination: "orders"}})
		if err != nil || job.ID == "" || job.Kind != "replay" {
			t.Fatalf("StartReplay = %+v, %v", job, err)
		}
		job, err = b.relay.WaitJob(ctx, job.ID)
		if err != nil || job.State != hookrelay.JobDone || !job.Finished() || job.Replay == nil || job.Replay.Rearmed != 1 || job.Actor != hookrelay.DefaultActor {
			t.Fatalf("WaitJob = %+v, %v; want done, 1 re-armed, by %s", job, err, hookrelay.DefaultActor)
		}
		if polled, err := b.relay.Job(ctx, job.ID); err != nil || polled.State != hookrelay.JobDone {
			t.Errorf("Job = %+v, %v; want it done", polled, err)
		}
		if got := waitEffects(t, b, 3); !slices.Equal(got, []string{"replay 0", "replay 1", "replay 2"}) {
			t.Errorf("effects = %v, want one per run", got)
		}
		waitDelivery(t, b.relay, "evt_ops_replay", "orders", hookrelay.StatusDone)

		ev, err := b.relay.Event(ctx, d.EventID)
		if err != nil || ev.ProviderEventID != "evt_ops_replay" || ev.Source != "stripe" || len(ev.Deliveries) != 1 {
			t.Fatalf("Event = %+v, %v", ev, err)
		}
		got := ev.Deliveries[0]
		if got.ID != d.ID || got.EventID != d.EventID || got.ReplayCount != 2 || len(got.AttemptLog) != 3 || got.AttemptLog[2].Round != 2 {
			t.Errorf("delivery = %+v, want replayed twice, one attempt a round", got)
		}
		if shown, err := b.relay.Delivery(ctx, d.ID); err != nil || shown.ReplayCount != 2 || len(shown.AttemptLog) != 3 {
			t.Errorf("Delivery = %+v, %v; want the event's delivery", shown, err)
		}
	})
}

// TestOpsRetryDeadRevivesDeadLetter lets a handler fail until its
// delivery is dead, fixes it, and retries the dead letter OnDead told
// of: the handler runs again and the delivery ends done.
func TestOpsRetryDeadRevivesDeadLetter(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		var broken atomic.Bool
		broken.Store(true)
		deadLetters := make(chan hookrelay.DeadLetter, 10)
		b := setupWith(t, drv.URL(t), func(c *hookrelay.Config) {
			c.OnDead = func(d hookrelay.DeadLetter) { deadLetters <- d }
		}, func(r *hookrelay.Relay) {
			r.Handle(orders(2), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				if broken.Load() {
					return errors.New("order service down")
				}
				return insertEffect(ctx, tx, ev, "revived")
			})
		})
		ctx := t.Context()
		b.mustPost(t, stripeEvent("evt_ops_dead", "checkout.session.completed", "ord_21", time.Now()))
		dl := receive(t, deadLetters)
		page, err := b.relay.ListDeliveries(ctx, hookrelay.EventQuery{EventFilter: hookrelay.EventFilter{Destination: "orders", Status: hookrelay.StatusDead}})
		if err != nil || len(page.Deliveries) != 1 || page.Deliveries[0].ID != dl.DeliveryID || page.Deliveries[0].ProviderEventID != "evt_ops_dead" {
			t.Fatalf("dead letters = %+v, %v; want the one OnDead told of, %+v", page, err, dl)
		}
		d, err := b.relay.Delivery(ctx, dl.DeliveryID)
		if err != nil || d.Status != hookrelay.StatusDead || len(d.AttemptLog) != 2 || d.AttemptLog[1].Error != "order service down" {
			t.Fatalf("Delivery = %+v, %v; want dead after two attempts", d, err)
		}

		broken.Store(false)
		res, err := b.relay.RetryDead(ctx, hookrelay.ReplayRequest{EventIDs: []string{dl.EventID}, EventFilter: hookrelay.EventFilter{Destination: dl.Destination}})
		if err != nil || res.Rearmed != 1 {
			t.Fatalf("RetryDead = %+v, %v; want 1 re-armed", res, err)
		}
		waitDelivery(t, b.relay, "evt_ops_dead", "orders", hookrelay.StatusDone)
		if got := waitEffects(t, b, 1); got[0] != "revived" {
			t.Errorf("effects = %v", got)
		}
		st, err := b.relay.Stats(ctx)
		if err != nil || st.Destinations["orders"].Done != 1 || st.Destinations["orders"].Dead != 0 {
			t.Errorf("Stats = %+v, %v; want one done delivery, no dead one", st, err)
		}
		if res, err := b.relay.RetryDead(ctx, hookrelay.ReplayRequest{EventFilter: hookrelay.EventFilter{Destination: "orders"}}); err != nil || res.Matched != 0 {
			t.Errorf("a second RetryDead = %+v, %v; want nothing left to retry", res, err)
		}
	})
}

// receive returns the next value of ch, failing the test when none comes
// in time.
func receive[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(15 * time.Second):
		t.Fatal("nothing received in 15s")
		panic("unreachable")
	}
}

// TestOpsPauseStopsHandling pauses a handler destination: an event
// received meanwhile waits, pending, and stats say the destination is
// paused; once resumed, the event is handled.
func TestOpsPauseStopsHandling(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		var calls atomic.Int32
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(3), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				calls.Add(1)
				return insertEffect(ctx, tx, ev, "after resume")
			})
		})
		ctx := t.Context()
		if err := b.relay.Pause(ctx, "orders"); err != nil {
			t.Fatalf("Pause: %v", err)
		}
		b.mustPost(t, stripeEvent("evt_ops_pause", "checkout.session.completed", "ord_22", time.Now()))
		// An unpaused destination handles an event within a poll.
		testkit.Consistently(t, 300*time.Millisecond, "no handler call while paused", func() error {
			return testkit.Check(calls.Load() == 0, "%d calls", calls.Load())
		})
		waitDelivery(t, b.relay, "evt_ops_pause", "orders", hookrelay.StatusPending)
		st, err := b.relay.Stats(ctx)
		if err != nil || !st.Destinations["orders"].Paused || st.Destinations["orders"].Pending != 1 {
			t.Errorf("Stats = %+v, %v; want orders paused with one pending delivery", st, err)
		}

		if err := b.relay.Resume(ctx, "orders"); err != nil {
			t.Fatalf("Resume: %v", err)
		}
		waitDelivery(t, b.relay, "evt_ops_pause", "orders", hookrelay.StatusDone)
		if calls.Load() != 1 {
			t.Errorf("%d handler calls, want 1", calls.Load())
		}
		if st, err := b.relay.Stats(ctx); err != nil || st.Destinations["orders"].Paused {
			t.Errorf("Stats = %+v, %v; want orders resumed", st, err)
		}
	})
}

// TestOpsBackfillAndSkip backfills, as a job, a pull destination added
// after an event was received, and skips a delivery that is stuck
// failing: a skipped delivery cannot be skipped again.
func TestOpsBackfillAndSkip(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		db := drv.URL(t)
		first := setupOn(t, db, func(r *hookrelay.Relay) {})
		first.mustPost(t, stripeEvent("evt_ops_fill", "checkout.session.completed", "ord_23", time.Now()))
		first.close()

		b := setupWith(t, db, withFile(t, `destinations:
  - {name: late, pull: true, secret: "`+destinationSecret+`", sources: [stripe]}
`), func(r *hookrelay.Relay) {
			r.Handle(hookrelay.Destination{Name: "stuck", Sources: []string{"stripe"}, Types: []string{"invoice.*"}, Backoff: []time.Duration{time.Hour}},
				func(context.Context, hookrelay.Tx, hookrelay.Event) error { return errors.New("never works") })
		})
		ctx := t.Context()
		window := hookrelay.BackfillRequest{Destination: "late", Since: time.Now().Add(-time.Hour), Until: time.Now().Add(time.Minute)}
		dry := window
		dry.DryRun = true
		if res, err := b.relay.Backfill(ctx, dry); err != nil || res != (hookrelay.BackfillResult{Matched: 1, DryRun: true}) {
			t.Errorf("dry run = %+v, %v; want the one event, nothing created", res, err)
		}
		job, err := b.relay.StartBackfill(ctx, window)
		if err != nil {
			t.Fatalf("StartBackfill: %v", err)
		}
		if job, err = b.relay.WaitJob(ctx, job.ID); err != nil || job.State != hookrelay.JobDone || job.Backfill == nil || job.Backfill.Created != 1 {
			t.Errorf("backfill job = %+v, %v; want done, one delivery created", job, err)
		}
		waitDelivery(t, b.relay, "evt_ops_fill", "late", hookrelay.StatusPending)

		b.mustPost(t, stripeEvent("evt_ops_stuck", "invoice.paid", "ord_24", time.Now()))
		stuck := waitDelivery(t, b.relay, "evt_ops_stuck", "stuck", hookrelay.StatusFailed)
		d, err := b.relay.SkipDelivery(ctx, stuck.ID)
		if err != nil || d.Status != hookrelay.StatusSkipped || d.EventID != stuck.EventID {
			t.Fatalf("SkipDelivery = %+v, %v; want it skipped", d, err)
		}
		if _, err := b.relay.SkipDelivery(ctx, stuck.ID); !errors.Is(err, hookrelay.ErrConflict) {
			t.Errorf("skipping a skipped delivery: %v, want ErrConflict", err)
		}
	})
}

// TestOpsErrors checks what the operations answer before Start, after
// Shutdown, and to requests that name nothing or select everything.
func TestOpsErrors(t *testing.T) {
	t.Parallel()
	r, err := hookrelay.New(hookrelay.Config{Database: testdb.SQLiteURL(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := r.Stats(ctx); !errors.Is(err, hookrelay.ErrNotRunning) {
		t.Errorf("Stats before Start: %v, want ErrNotRunning", err)
	}
	b := setup(t, testdb.Driver{Name: "sqlite", URL: testdb.SQLiteURL}, func(r *hookrelay.Relay) {
		r.Handle(orders(3), func(context.Context, hookrelay.Tx, hookrelay.Event) error { return nil })
	})
	for name, err := range map[string]error{
		"unknown event":       second(b.relay.Event(ctx, "ev_nothing")),
		"unknown delivery":    second(b.relay.Delivery(ctx, 1<<40)),
		"unknown destination": b.relay.Pause(ctx, "nowhere"),
		"unknown job":         second(b.relay.Job(ctx, "job_nothing")),
	} {
		if !errors.Is(err, hookrelay.ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}
	for name, err := range map[string]error{
		"replay of everything":   second(b.relay.Replay(ctx, hookrelay.ReplayRequest{})),
		"window upside down":     second(b.relay.ListEvents(ctx, hookrelay.EventQuery{EventFilter: hookrelay.EventFilter{Since: time.Now(), Until: time.Now().Add(-time.Hour)}})),
		"retry of done letters":  second(b.relay.RetryDead(ctx, hookrelay.ReplayRequest{EventFilter: hookrelay.EventFilter{Status: hookrelay.StatusDone}})),
		"backfill without since": second(b.relay.Backfill(ctx, hookrelay.BackfillRequest{Destination: "orders"})),
	} {
		if !errors.Is(err, hookrelay.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	b.close()
	if _, err := b.relay.ListEvents(ctx, hookrelay.EventQuery{}); !errors.Is(err, hookrelay.ErrNotRunning) {
		t.Errorf("ListEvents after Shutdown: %v, want ErrNotRunning", err)
	}
}

// second returns the error of a call that returns a value and an error.
func second[T any](_ T, err error) error { return err }
