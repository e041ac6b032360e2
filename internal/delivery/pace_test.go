package delivery

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

// countedClaims is a real queue that counts the claims that have
// returned, and those that found deliveries.
type countedClaims struct {
	store.Queue
	returned atomic.Int64
	found    atomic.Int64
}

func (c *countedClaims) ClaimDeliveries(ctx context.Context, req store.ClaimRequest) ([]store.Claim, error) {
	cs, err := c.Queue.ClaimDeliveries(ctx, req)
	if len(cs) > 0 {
		c.found.Add(1)
	}
	c.returned.Add(1)
	return cs, err
}

// TestEngineClaimsPaceAStream checks that a stream of new events, each
// stored on its own and waking the engine as an ingest commit does, is
// claimed a few events at a time: no claimer starts more than one claim
// that finds deliveries per claimGap, however often it is woken.
func TestEngineClaimsPaceAStream(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, nil)
		q := &countedClaims{Queue: b.queue}
		e, _, _ := startEngine(t, Options{
			Queue:        q,
			Destinations: []config.Destination{testDestination("d", ep.srv.URL)},
			Claimers:     2,
			PollInterval: time.Hour, // only the wakes start claims
		})
		const n = 150
		start := time.Now()
		var events []store.Event
		for range n {
			events = append(events, ingestEvents(t, b.store, 1, []string{"d"}, nil)...)
			e.Wake("d")
		}
		waitStatus(t, b.store, events, "d", store.StatusDone, 30*time.Second)
		elapsed := time.Since(start)

		// Each claimer may claim once when the stream starts and then once
		// per claimGap; unpaced, it would claim at every wake.
		limit := 2 * (int64(elapsed/claimGap) + 2)
		if got := q.found.Load(); got > limit {
			t.Errorf("%d claims found deliveries in %v, want at most %d (two claimers, one per %v each)", got, elapsed, limit, claimGap)
		}
		if len(ep.received()) < n {
			t.Errorf("%d pushes for %d events", len(ep.received()), n)
		}
	})
}

// TestIdleDestinationPolledByOneClaim checks that an idle destination is
// polled by one claimer, not by each: with three claimers and nothing to
// deliver, the claims come about one per poll interval, plus the first
// look of each of the other two. Polled by every claimer, they would come
// three times as often.
func TestIdleDestinationPolledByOneClaim(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		q := &countedClaims{Queue: b.queue}
		checkPolledByOne(t, q, 3, Options{
			Queue:        q,
			Destinations: []config.Destination{testDestination("d", "http://127.0.0.1:1")},
			Claimers:     3,
		})
	})
}

// TestIdleHandlerPolledByOneLoop is TestIdleDestinationPolledByOneClaim for
// a handler destination: of its loops, one at a time looks at it while it
// is idle.
func TestIdleHandlerPolledByOneLoop(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		q := &countedClaims{Queue: b.queue}
		d := handlerDestination("h")
		d.Concurrency = 4
		checkPolledByOne(t, q, d.Concurrency, Options{
			Queue: q, Within: b.store, Registerer: b.reg,
			Destinations: []config.Destination{d},
			Handlers:     map[string]Handler{"h": func(context.Context, any, store.Claim) error { return nil }},
		})
	})
}

// checkPolledByOne starts an engine of o, whose queue q counts its
// claims, on one idle destination of claimers claimers polled every 20
// ms, and checks that its claims come no faster than one claimer polling
// would make them, with the first look of each of the others.
func checkPolledByOne(t *testing.T, q *countedClaims, claimers int, o Options) {
	t.Helper()
	const poll = 20 * time.Millisecond
	o.PollInterval = poll
	start := time.Now()
	startEngine(t, o)
	const claims = 20
	testkit.Eventually(t, 30*time.Second, fmt.Sprintf("%d claims", claims), func() error {
		return testkit.Check(q.returned.Load() >= claims, "%d claims", q.returned.Load())
	})
	elapsed := time.Since(start)
	got := q.returned.Load()
	if limit := int64(elapsed/poll) + int64(claimers-1) + 2; got > limit {
		t.Errorf("%d claims in %v of an idle destination polled every %v, want at most %d (one claimer polling)", got, elapsed, poll, limit)
	}
	if q.found.Load() != 0 {
		t.Errorf("%d claims found deliveries; the queue is empty", q.found.Load())
	}
}
