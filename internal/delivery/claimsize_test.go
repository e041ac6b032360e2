package delivery

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// newShapeWorker returns a worker of concurrency 4 and timeout 8s, with
// no queue, for tests of how much it claims and holds.
func newShapeWorker(t *testing.T) *worker {
	t.Helper()
	d := testDestination("d", "http://127.0.0.1:1/")
	d.Concurrency = 4
	d.Timeout = config.Duration(8 * time.Second)
	w, err := newWorker(&Engine{}, nil, d)
	if err != nil {
		t.Fatalf("newWorker: %v", err)
	}
	return w
}

// TestWorkerClaimShape checks that a worker claims its concurrency at a
// time until its pushes are timed, claims fastClaimFor(concurrency) once a
// run of quick pushes shows the destination is quick, and claims small
// again after one slow push.
func TestWorkerClaimShape(t *testing.T) {
	t.Parallel()
	w := newShapeWorker(t)
	check := func(when string, wantBatch, wantWindow int) {
		t.Helper()
		if batch, window := w.claimShape(); batch != wantBatch || window != wantWindow {
			t.Errorf("%s: claimShape = %d, %d; want %d, %d", when, batch, window, wantBatch, wantWindow)
		}
	}

	check("before any push", 4, windowFor(4))
	for range 10 {
		w.speed.note(time.Millisecond)
	}
	check("after 10 quick pushes", 4, windowFor(4)) // the peak is still above timeout/16
	for range 100 {
		w.speed.note(time.Millisecond)
	}
	check("after 110 quick pushes", 16, 36)
	w.speed.note(2 * time.Second)
	check("after a push of 2s", 4, windowFor(4))
}

// TestQuickWorkerClaimsAheadOfItsQueue checks that a worker whose pushes
// are quick begins its next full claim while the last one is still queued
// and every sender is busy, so that the senders never wait for a claim.
func TestQuickWorkerClaimsAheadOfItsQueue(t *testing.T) {
	t.Parallel()
	w := newShapeWorker(t)
	for range 200 {
		w.speed.note(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	// Four pushes under way and one fast claim of 16 queued behind them.
	w.held = 4
	if n := w.reserve(ctx); n != 16 {
		t.Fatalf("first claim reserved %d, want 16", n)
	}
	w.endClaim(0)
	if n := w.reserve(ctx); n != 16 {
		t.Errorf("claim behind a queued one reserved %d, want 16 at once", n)
	}
}

// TestFastClaimFor checks the size of a quick worker's claims: four times
// its concurrency, up to fastClaimCap, and never below its concurrency.
func TestFastClaimFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ concurrency, want int }{
		{1, 4}, {32, 128}, {64, 256}, {100, 256}, {300, 300},
	} {
		if got := fastClaimFor(tc.concurrency); got != tc.want {
			t.Errorf("fastClaimFor(%d) = %d, want %d", tc.concurrency, got, tc.want)
		}
	}
}

// askedClaims is a real queue that notes how many deliveries each claim
// asks for.
type askedClaims struct {
	store.Queue
	mu    sync.Mutex
	asked []int
}

func (a *askedClaims) ClaimDeliveries(ctx context.Context, req store.ClaimRequest) ([]store.Claim, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req.Max)
	a.mu.Unlock()
	return a.Queue.ClaimDeliveries(ctx, req)
}

// TestEngineClaimsMoreFromAQuickDestination checks, on the real stores,
// that a worker draining a backlog to a quick destination goes on to claim
// fastClaimFor(concurrency) at a time, never more, and still pushes every
// delivery once.
func TestEngineClaimsMoreFromAQuickDestination(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, nil)
		events := ingestEvents(t, b.store, 300, []string{"d"}, nil)
		d := testDestination("d", ep.srv.URL)
		d.Concurrency = 2
		q := &askedClaims{Queue: b.queue}
		startEngine(t, Options{Queue: q, Destinations: []config.Destination{d}})

		waitStatus(t, b.store, events, "d", store.StatusDone, 30*time.Second)
		if n := len(ep.received()); n != len(events) {
			t.Errorf("%d pushes for %d events, want one each", n, len(events))
		}
		q.mu.Lock()
		defer q.mu.Unlock()
		want := fastClaimFor(d.Concurrency)
		if most := slices.Max(q.asked); most != want {
			t.Errorf("the largest claim asked for %d deliveries, want fastClaimFor(%d) = %d (claims asked %v)",
				most, d.Concurrency, want, q.asked)
		}
	})
}
