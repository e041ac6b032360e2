package delivery

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
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
		hang, release := newHangingEndpoint(t)
		ingestEvents(t, b.store, 20, []string{"hang"}, nil)
		d := testDestination("hang", hang.srv.URL)
		d.Timeout = config.Duration(time.Minute)
		d.Concurrency = 2
		startEngine(t, Options{Queue: b.queue, Destinations: []config.Destination{d}})
		t.Cleanup(release) // runs first: the engine's stop waits for the hanging pushes

		want := int64(windowFor(d.Concurrency))
		testkit.Eventually(t, 10*time.Second, "the window to fill", func() error {
			n := processing(t, b.store, "hang")
			return testkit.Check(n == want, "%d deliveries processing, want %d", n, want)
		})
		// Several polls (50ms apart) later the worker still holds its
		// window, no more.
		testkit.Consistently(t, 300*time.Millisecond, "the window held, no more", func() error {
			n := processing(t, b.store, "hang")
			return testkit.Check(n == want, "%d deliveries processing, want the window of %d", n, want)
		})
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

		testkit.Eventually(t, 20*time.Second, "every event pushed while no outcome is written", func() error {
			n := len(ep.received())
			return testkit.Check(n >= len(events), "%d of %d pushed", n, len(events))
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

// heldClaims is a real queue whose claims note what they ask for and then
// wait until release is closed.
type heldClaims struct {
	store.Queue
	started chan int // the Max of each claim begun
	release chan struct{}
}

func (h *heldClaims) ClaimDeliveries(ctx context.Context, req store.ClaimRequest) ([]store.Claim, error) {
	h.started <- req.Max
	<-h.release
	return h.Queue.ClaimDeliveries(ctx, req)
}

// TestEngineClaimsOverlap checks that a worker with a backlog runs its
// claimers side by side, each claiming concurrency deliveries, rather than
// one claim taking the whole window while the other waits: the next claim
// is then under way while the senders work through the last one.
func TestEngineClaimsOverlap(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, nil)
		ingestEvents(t, b.store, 20, []string{"d"}, nil)
		d := testDestination("d", ep.srv.URL)
		d.Concurrency = 4
		q := &heldClaims{Queue: b.queue, started: make(chan int, 100), release: make(chan struct{})}
		startEngine(t, Options{Queue: q, Destinations: []config.Destination{d}, Claimers: 2, PollInterval: 20 * time.Millisecond})
		t.Cleanup(func() { close(q.release) }) // runs first: the engine's stop waits for the held claims

		for i := range 2 {
			select {
			case n := <-q.started:
				if n != d.Concurrency {
					t.Errorf("claim %d asked for %d deliveries, want the concurrency of %d", i+1, n, d.Concurrency)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%d claims under way after 5s, want 2 at once", i)
			}
		}
	})
}

// TestWorkerStartable checks how far ahead a rate-limited worker may claim:
// a fast rate whose burst was just spent still lets a full window start
// within rateLookahead, a slow one only its burst.
func TestWorkerStartable(t *testing.T) {
	t.Parallel()
	e := &Engine{}
	for _, tc := range []struct {
		rate                    config.Rate
		drained                 bool
		wantAtLeast, wantAtMost int
	}{
		{config.Rate{Events: 1_000_000, Per: time.Second}, true, windowFor(4), 1_000_000},
		{config.Rate{Events: 1_000_000, Per: time.Second}, false, windowFor(4), 1_000_000},
		{config.Rate{Events: 1, Per: time.Minute}, false, 1, 1},
		{config.Rate{Events: 1, Per: time.Minute}, true, 0, 0},
	} {
		d := testDestination("d", "http://127.0.0.1:1/")
		d.Concurrency = 4
		d.Rate = tc.rate
		w, err := newWorker(e, nil, d)
		if err != nil {
			t.Fatalf("newWorker: %v", err)
		}
		if tc.drained {
			w.limiter.AllowN(time.Now(), w.limiter.Burst())
		}
		if got := w.startable(); got < tc.wantAtLeast || got > tc.wantAtMost {
			t.Errorf("rate %s, burst spent %v: startable %d, want %d to %d", tc.rate, tc.drained, got, tc.wantAtLeast, tc.wantAtMost)
		}
	}
}
