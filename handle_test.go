package hookrelay_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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

// orders is the handler destination of the tests, with fast retries.
func orders(maxAttempts int) hookrelay.Destination {
	return hookrelay.Destination{
		Name: "orders", Sources: []string{"stripe"}, Types: []string{"checkout.session.*"},
		MaxAttempts: maxAttempts, Backoff: []time.Duration{10 * time.Millisecond},
	}
}

func TestHandleCommitsTogether(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		var (
			mu   sync.Mutex
			seen = map[string]hookrelay.Event{}
		)
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(3), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				mu.Lock()
				seen[ev.ProviderEventID] = ev
				mu.Unlock()
				return insertEffect(ctx, tx, ev, "paid")
			})
		})
		created := time.Now().Add(-time.Minute).Truncate(time.Second)
		body := stripeEvent("evt_commit", "checkout.session.completed", "ord_1", created)
		b.mustPost(t, body)
		b.mustPost(t, stripeEvent("evt_other_type", "invoice.paid", "ord_1", created))
		d := b.waitStatus(t, "evt_commit", "orders", "done")
		if d.Attempts != 1 {
			t.Errorf("attempts = %d, want 1", d.Attempts)
		}
		if got := b.app.strings(t, `SELECT event_id FROM effects`); !slices.Equal(got, []string{"evt_commit"}) {
			t.Errorf("effects = %v, want the one event of the destination's types", got)
		}
		mu.Lock()
		ev := seen["evt_commit"]
		mu.Unlock()
		if ev.ID == "" || ev.Source != "stripe" || ev.Type != "checkout.session.completed" || string(ev.Body) != string(body) ||
			!ev.OccurredAt.Equal(created) || ev.ReceivedAt.IsZero() || ev.Destination != "orders" || ev.DeliveryID == 0 ||
			ev.Attempt != 1 || ev.ReplayCount != 0 || ev.Header.Get("Content-Type") != "application/json" || ev.ContentType != "application/json" {
			t.Errorf("event = %+v", ev)
		}
	})
}

func TestHandleErrorRollsBackTogether(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(5), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				if err := insertEffect(ctx, tx, ev, fmt.Sprint("attempt ", ev.Attempt)); err != nil {
					return err
				}
				switch ev.Attempt {
				case 1:
					return errors.New("payment provider said wait")
				case 2:
					panic("nil order")
				}
				return nil
			})
		})
		b.mustPost(t, stripeEvent("evt_rollback", "checkout.session.completed", "ord_2", time.Now()))
		d := b.waitStatus(t, "evt_rollback", "orders", "done")
		if d.Attempts != 3 {
			t.Errorf("attempts = %d, want 3", d.Attempts)
		}
		if got := b.app.strings(t, `SELECT note FROM effects`); !slices.Equal(got, []string{"attempt 3"}) {
			t.Errorf("effects = %v, want only the third attempt's", got)
		}
	})
}

func TestHandleFailureRetriesThenDead(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		var calls atomic.Int32
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(3), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				calls.Add(1)
				if err := insertEffect(ctx, tx, ev, "never"); err != nil {
					return err
				}
				return fmt.Errorf("order %s not found", "ord_3")
			})
		})
		b.mustPost(t, stripeEvent("evt_dead", "checkout.session.completed", "ord_3", time.Now()))
		d := b.waitStatus(t, "evt_dead", "orders", "dead")
		// A wrong fourth call would follow the third at the 10ms backoff.
		testkit.Consistently(t, 100*time.Millisecond, "no call after the delivery is dead", func() error {
			return testkit.Check(calls.Load() == 3, "%d calls", calls.Load())
		})
		if d.Attempts != 3 || calls.Load() != 3 || d.LastError != "order ord_3 not found" {
			t.Errorf("delivery = %+v after %d calls, want dead after 3 with the handler's error", d, calls.Load())
		}
		if got := b.app.strings(t, `SELECT note FROM effects`); len(got) != 0 {
			t.Errorf("effects = %v, want none", got)
		}
	})
}

func TestHandleSkipCommitsWrites(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(3), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				if err := insertEffect(ctx, tx, ev, "seen, stale"); err != nil {
					return err
				}
				return fmt.Errorf("order already paid: %w", hookrelay.Skip)
			})
		})
		b.mustPost(t, stripeEvent("evt_skip", "checkout.session.completed", "ord_4", time.Now()))
		d := b.waitStatus(t, "evt_skip", "orders", "skipped")
		if d.Attempts != 1 || d.LastError != "order already paid: hookrelay: skip" {
			t.Errorf("delivery = %+v", d)
		}
		if got := b.app.strings(t, `SELECT note FROM effects`); !slices.Equal(got, []string{"seen, stale"}) {
			t.Errorf("effects = %v, want the skipping handler's write", got)
		}
	})
}

// TestHandleOrderingPerKey posts one order's events in a shuffled order
// while the handler refuses them, then lets it through: it must see them
// one at a time, in the order they occurred, while another order's event
// is not held back.
func TestHandleOrderingPerKey(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		var (
			open     atomic.Bool
			inFlight atomic.Int32
			overlap  atomic.Bool
		)
		dest := orders(1000)
		dest.OrderingKey, dest.Concurrency = "data.object.client_reference_id", 4
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(dest, func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				if ev.ProviderEventID == "evt_other" {
					return insertEffect(ctx, tx, ev, "other")
				}
				if !open.Load() {
					return errors.New("not yet")
				}
				if inFlight.Add(1) > 1 {
					overlap.Store(true)
				}
				defer inFlight.Add(-1)
				time.Sleep(5 * time.Millisecond) // a handler that takes a while, so that an overlap would show
				return insertEffect(ctx, tx, ev, "ordered")
			})
		})
		base := time.Now().Add(-time.Hour).Truncate(time.Second)
		const n = 8
		var want []string
		for i := range n {
			want = append(want, fmt.Sprintf("evt_%02d", i))
		}
		shuffled := slices.Clone(want)
		rand.Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for _, id := range shuffled {
			var i int
			fmt.Sscanf(id, "evt_%d", &i)
			b.mustPost(t, stripeEvent(id, "checkout.session.completed", "ord_5", base.Add(time.Duration(i)*time.Second)))
		}
		b.mustPost(t, stripeEvent("evt_other", "checkout.session.completed", "ord_6", base))
		b.waitStatus(t, "evt_other", "orders", "done")
		open.Store(true)
		b.waitStatus(t, want[n-1], "orders", "done")
		got := b.app.strings(t, `SELECT event_id FROM effects WHERE note = 'ordered'`)
		if !slices.Equal(got, want) || overlap.Load() {
			t.Errorf("handled %v (overlapping: %v), want %v one at a time", got, overlap.Load(), want)
		}
	})
}

func TestHandleReplayRerunsHandler(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(3), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				return insertEffect(ctx, tx, ev, fmt.Sprint("replay ", ev.ReplayCount))
			})
		})
		b.mustPost(t, stripeEvent("evt_replay", "checkout.session.completed", "ord_7", time.Now()))
		b.waitStatus(t, "evt_replay", "orders", "done")
		var res struct {
			Rearmed int `json:"rearmed"`
		}
		b.adminCall(t, http.MethodPost, "/api/v1/replay", `{"source":"stripe","destination":"orders"}`, &res)
		if res.Rearmed != 1 {
			t.Fatalf("replay re-armed %d deliveries, want 1", res.Rearmed)
		}
		testkit.Eventually(t, 15*time.Second, "the replayed run's effect", func() error {
			got := b.app.strings(t, `SELECT note FROM effects`)
			return testkit.Check(len(got) >= 2, "effects %v", got)
		})
		if d := b.waitStatus(t, "evt_replay", "orders", "done"); d.ReplayCount != 1 {
			t.Errorf("replay count = %d, want 1", d.ReplayCount)
		}
		got := b.app.strings(t, `SELECT note FROM effects ORDER BY note`)
		if !slices.Equal(got, []string{"replay 0", "replay 1"}) {
			t.Errorf("effects = %v, want one per run", got)
		}
	})
}

// TestHandleIngestWhileHandlersRun posts webhooks while slow handlers hold
// their transactions — on SQLite, the only writer: every post is stored
// and answered 200, and every event is then handled once.
func TestHandleIngestWhileHandlersRun(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		b := setup(t, drv, func(r *hookrelay.Relay) {
			r.Handle(orders(3), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				time.Sleep(50 * time.Millisecond) // the slow handler under test, holding its transaction
				return insertEffect(ctx, tx, ev, "slow")
			})
		})
		const n = 20
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if code := b.post(t, stripeEvent(fmt.Sprintf("evt_busy_%d", i), "checkout.session.completed", "ord_8", time.Now())); code != http.StatusOK {
					t.Errorf("post %d: status %d", i, code)
				}
			})
		}
		wg.Wait()
		testkit.Eventually(t, 20*time.Second, fmt.Sprintf("%d handled events", n), func() error {
			got := b.app.strings(t, `SELECT event_id FROM effects`)
			return testkit.Check(len(got) >= n, "%d effects", len(got))
		})
		// A second run of an event would follow within a retry's 10ms backoff.
		testkit.Consistently(t, 100*time.Millisecond, "no event handled twice", func() error {
			got := b.app.strings(t, `SELECT event_id FROM effects`)
			return testkit.Check(len(got) == n, "%d effects", len(got))
		})
		got := b.app.strings(t, `SELECT event_id FROM effects`)
		slices.Sort(got)
		if len(got) != n || len(slices.Compact(slices.Clone(got))) != n {
			t.Errorf("%d effects (%d distinct), want %d", len(got), len(slices.Compact(got)), n)
		}
	})
}

func TestReceiverBeforeStartAnswers503(t *testing.T) {
	t.Parallel()
	r, err := hookrelay.New(hookrelay.Config{Database: testdb.SQLiteURL(t)})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptestRecorder(r.Receiver(), http.MethodPost, "/webhooks/stripe")
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("status %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	_, err := hookrelay.New(hookrelay.Config{Database: "mysql://x", Sources: []hookrelay.Source{{Name: "stripe", Verify: "strpe"}}})
	if err == nil {
		t.Fatal("New accepted a bad config")
	}
	r, err := hookrelay.New(hookrelay.Config{Database: testdb.SQLiteURL(t)})
	if err != nil {
		t.Fatal(err)
	}
	r.Handle(hookrelay.Destination{Name: "orders", Sources: []string{"nowhere"}}, func(context.Context, hookrelay.Tx, hookrelay.Event) error { return nil })
	if err := r.Start(context.Background()); err == nil {
		t.Error("Start accepted a destination of an unknown source")
	}
}

// TestHandleBackfillAndStats stops a Relay, starts another on the same
// database with a second handler destination, and backfills it: its handler
// runs on the event received before it existed, the first destination's
// does not run again, and stats count both.
func TestHandleBackfillAndStats(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		db := drv.URL(t)
		record := func(note string) hookrelay.HandlerFunc {
			return func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				return insertEffect(ctx, tx, ev, note)
			}
		}
		first := setupOn(t, db, func(r *hookrelay.Relay) { r.Handle(orders(3), record("orders")) })
		first.mustPost(t, stripeEvent("evt_backfill", "checkout.session.completed", "ord_9", time.Now()))
		first.waitStatus(t, "evt_backfill", "orders", "done")
		first.close()

		b := setupOn(t, db, func(r *hookrelay.Relay) {
			r.Handle(orders(3), record("orders"))
			r.Handle(hookrelay.Destination{Name: "audit", Sources: []string{"stripe"}}, record("audit"))
		})
		var res map[string]any
		since, until := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
		b.adminCall(t, http.MethodPost, "/api/v1/backfill",
			fmt.Sprintf(`{"destination":"audit","since":%q,"until":%q}`, since, until), &res)
		b.waitStatus(t, "evt_backfill", "audit", "done")
		if got := b.app.strings(t, `SELECT note FROM effects ORDER BY note`); !slices.Equal(got, []string{"audit", "orders"}) {
			t.Errorf("effects = %v, want one per destination", got)
		}
		var stats struct {
			Destinations map[string]struct {
				Done int `json:"done"`
			} `json:"destinations"`
		}
		b.adminCall(t, http.MethodGet, "/api/v1/stats", "", &stats)
		if stats.Destinations["orders"].Done != 1 || stats.Destinations["audit"].Done != 1 {
			t.Errorf("stats = %+v, want one done delivery per destination", stats.Destinations)
		}
		var dests struct {
			Destinations []struct {
				Name string `json:"name"`
				Kind string `json:"kind"`
			} `json:"destinations"`
		}
		b.adminCall(t, http.MethodGet, "/api/v1/destinations", "", &dests)
		for _, d := range dests.Destinations {
			if d.Kind != "handler" {
				t.Errorf("destination %s listed as %q, want handler", d.Name, d.Kind)
			}
		}
		if len(dests.Destinations) != 2 {
			t.Errorf("destinations = %+v, want orders and audit", dests.Destinations)
		}
	})
}
