package hookrelay_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// lifecycleEvents is how many events the shutdown tests post: more than
// the handlers running at once, so that some wait when Shutdown comes.
const lifecycleEvents = 30

// busy returns the handler destination of the shutdown tests: eight
// handlers at once (one at a time on SQLite, the others waiting for the
// writer), each given a minute.
func busy() hookrelay.Destination {
	d := orders(3)
	d.Concurrency, d.Timeout = 8, time.Minute
	return d
}

// postLifecycleEvents posts the shutdown tests' events, then opens
// posted, and returns their provider ids, sorted. Until it is open the
// handlers snooze: on SQLite a handler at work holds the writer, which
// the posts need.
func postLifecycleEvents(t *testing.T, b *bundle, posted *atomic.Bool) []string {
	t.Helper()
	var ids []string
	for i := range lifecycleEvents {
		id := fmt.Sprintf("evt_life_%02d", i)
		ids = append(ids, id)
		b.mustPost(t, stripeEvent(id, "checkout.session.completed", "ord_"+id, time.Now()))
	}
	posted.Store(true)
	return ids
}

// postedYet snoozes the handler's event until posted is open.
func postedYet(posted *atomic.Bool) error {
	if posted.Load() {
		return nil
	}
	return hookrelay.Snooze(10 * time.Millisecond)
}

// running is how many handlers the shutdown tests wait for before they
// shut down: every loop inside a handler on PostgreSQL; on SQLite, the one
// that holds the writer, which the others wait for.
func running(drv testdb.Driver) int32 {
	if drv.Name == "sqlite" {
		return 1
	}
	return int32(busy().Concurrency)
}

// waitStopped waits until the Receiver answers 503, as it does once
// Shutdown has been called: a GET, which a running Receiver refuses with
// 405, stores nothing.
func waitStopped(t *testing.T, b *bundle) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, "the receiver to answer 503", func() error {
		resp, err := http.Get(b.ingest + "/webhooks/stripe")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return testkit.Check(resp.StatusCode == http.StatusServiceUnavailable, "status %d", resp.StatusCode)
	})
}

// restartAndCheck starts the application again on db, with a handler
// that does its work at once, and checks that every event of ids is
// handled exactly once across both runs, each in one attempt: the
// deliveries the first run claimed and did not handle went back to the
// queue without an attempt counted.
func restartAndCheck(t *testing.T, db string, ids []string) {
	t.Helper()
	b := setupOn(t, db, func(r *hookrelay.Relay) {
		r.Handle(busy(), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
			return insertEffect(ctx, tx, ev, "after restart")
		})
	})
	for _, id := range ids {
		if d := b.waitStatus(t, id, "orders", "done"); d.Attempts != 1 {
			t.Errorf("%s: done after %d attempts, want 1", id, d.Attempts)
		}
	}
	if got := b.app.strings(t, `SELECT event_id FROM effects ORDER BY event_id`); !slices.Equal(got, ids) {
		t.Errorf("effects = %v, want each event once", got)
	}
}

// TestShutdownStartsNoHandler calls Shutdown while handlers run and more
// deliveries wait: from then on no handler starts, on either driver,
// though deliveries are claimed and, on SQLite, wait for the writer; the
// handlers running finish and commit. After a restart every event is
// handled exactly once.
func TestShutdownStartsNoHandler(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		db := drv.URL(t)
		var (
			posted  atomic.Bool
			started atomic.Int32
		)
		release := make(chan struct{})
		b := setupOn(t, db, func(r *hookrelay.Relay) {
			r.Handle(busy(), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				if err := postedYet(&posted); err != nil {
					return err
				}
				started.Add(1)
				select { // the handler at work when Shutdown comes
				case <-release:
				case <-ctx.Done():
					return ctx.Err()
				}
				return insertEffect(ctx, tx, ev, "before shutdown")
			})
		})
		ids := postLifecycleEvents(t, b, &posted)
		want := running(drv)
		testkit.Eventually(t, 20*time.Second, fmt.Sprintf("%d handlers running", want), func() error {
			return testkit.Check(started.Load() == want, "%d running", started.Load())
		})

		stopped := make(chan error, 1)
		go func() { stopped <- b.relay.Shutdown(context.Background()) }()
		waitStopped(t, b)
		calledBefore := started.Load()
		close(release)
		select {
		case err := <-stopped:
			if err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("Shutdown still waiting 30s after the handlers returned")
		}
		if n := started.Load(); n != calledBefore {
			t.Errorf("%d handler calls started after Shutdown was called (%d before)", n-calledBefore, calledBefore)
		}
		if got := b.app.strings(t, `SELECT event_id FROM effects`); len(got) != int(calledBefore) {
			t.Errorf("%d effects committed, want the %d of the handlers Shutdown waited for", len(got), calledBefore)
		}
		b.close()
		restartAndCheck(t, db, ids)
	})
}

// TestShutdownCancelsHandlersWhenItsContextEnds calls Shutdown with a
// short context while handlers run that wait for theirs: once it ends,
// their contexts are cancelled, they roll back and Shutdown returns; after
// a restart every event is handled exactly once, none lost, none
// repeated, the cancelled ones not counted as attempts.
func TestShutdownCancelsHandlersWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		db := drv.URL(t)
		var (
			posted    atomic.Bool
			started   atomic.Int32
			cancelled atomic.Int32
			carried   atomic.Int32 // handler contexts that carry Start's values
		)
		b := setupOn(t, db, func(r *hookrelay.Relay) {
			r.Handle(busy(), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				if err := postedYet(&posted); err != nil {
					return err
				}
				started.Add(1)
				if ctx.Value(startKey{}) == "start" {
					carried.Add(1)
				}
				if err := insertEffect(ctx, tx, ev, "rolled back"); err != nil {
					return err
				}
				<-ctx.Done() // a handler whose work outlasts the shutdown's patience
				if errors.Is(ctx.Err(), context.Canceled) {
					cancelled.Add(1)
				}
				return ctx.Err()
			})
		})
		ids := postLifecycleEvents(t, b, &posted)
		want := running(drv)
		testkit.Eventually(t, 20*time.Second, fmt.Sprintf("%d handlers running", want), func() error {
			return testkit.Check(started.Load() == want, "%d running", started.Load())
		})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		stopped := make(chan error, 1)
		go func() { stopped <- b.relay.Shutdown(ctx) }()
		select {
		case err := <-stopped:
			if err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("Shutdown still waiting 30s after its context ended")
		}
		if n := started.Load(); n != want || cancelled.Load() != want || carried.Load() != want {
			t.Errorf("%d handlers started, %d cancelled, %d carrying Start's context values; want %d of each",
				n, cancelled.Load(), carried.Load(), want)
		}
		if got := b.app.strings(t, `SELECT event_id FROM effects`); len(got) != 0 {
			t.Errorf("effects = %v, want none: the cancelled handlers rolled back", got)
		}
		b.close()
		restartAndCheck(t, db, ids)
	})
}
