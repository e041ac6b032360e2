package delivery

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// processing returns how many of destination's deliveries st counts as
// processing (claimed and not yet recorded or released).
func processing(t *testing.T, st store.DB, destination string) int64 {
	t.Helper()
	s, err := st.Stats(context.Background(), time.Now())
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	return s.Destinations[destination].Counts[store.StatusProcessing]
}

// TestEngineWindowBehindAHangingDestination checks the window of a worker
// whose pushes do not end: it pushes concurrency deliveries, claims as many
// again to queue behind them, and claims nothing more.
func TestEngineWindowBehindAHangingDestination(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		release := make(chan struct{})
		hang := newEndpoint(t, func(hit, int) (int, http.Header) {
			<-release
			return http.StatusOK, nil
		})
		ingestEvents(t, b.store, 20, []string{"hang"}, nil)
		d := testDestination("hang", hang.srv.URL)
		d.Timeout = config.Duration(time.Minute)
		d.Concurrency = 2
		startEngine(t, Options{Queue: b.queue, Destinations: []config.Destination{d}})
		t.Cleanup(func() { close(release) }) // runs first: the engine's stop waits for the hanging pushes

		want := int64(windowFor(d.Concurrency))
		waitFor(t, "the window to fill", 10*time.Second, func() bool { return processing(t, b.store, "hang") == want })
		// Several polls later the worker still holds its window, no more.
		time.Sleep(300 * time.Millisecond)
		if n := processing(t, b.store, "hang"); n != want {
			t.Errorf("%d deliveries processing, want the window of %d", n, want)
		}
		if n := len(hang.received()); n != d.Concurrency {
			t.Errorf("%d pushes in flight, want the concurrency of %d", n, d.Concurrency)
		}
	})
}

// heldOutcomes is a real queue whose outcome writes wait until release is
// closed, as a slow or briefly unavailable database makes them wait.
type heldOutcomes struct {
	store.Queue
	release chan struct{}
	written atomic.Int64 // outcome batches that have returned
}

func (h *heldOutcomes) CompleteDeliveries(ctx context.Context, cs []store.Completion) ([]bool, error) {
	select {
	case <-h.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer h.written.Add(1)
	return h.Queue.CompleteDeliveries(ctx, cs)
}

// TestEngineOutcomesDoNotHoldTheWindow checks that a push's room in the
// window comes back when the push ends, not when its outcome is written:
// while no outcome can be written, the worker goes on pushing well beyond
// its window, and every outcome is recorded once writes resume.
func TestEngineOutcomesDoNotHoldTheWindow(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, nil)
		events := ingestEvents(t, b.store, 24, []string{"d"}, nil)
		q := &heldOutcomes{Queue: b.queue, release: make(chan struct{})}
		d := testDestination("d", ep.srv.URL)
		d.Concurrency = 2
		startEngine(t, Options{Queue: q, Destinations: []config.Destination{d}})

		waitFor(t, "every event pushed while no outcome is written", 20*time.Second, func() bool {
			return len(ep.received()) >= len(events)
		})
		if n := q.written.Load(); n != 0 {
			t.Fatalf("%d outcome batches written before the release", n)
		}
		close(q.release)
		waitStatus(t, b.store, events, "d", store.StatusDone, 20*time.Second)
		if n := len(ep.received()); n != len(events) {
			t.Errorf("%d pushes for %d events, want one each", n, len(events))
		}
	})
}
