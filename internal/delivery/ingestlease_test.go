package delivery

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

// ingestLeasing stores n events with one delivery per destination as the
// relay's receiver does: each delivery leased at ingest where e reserves
// room for it, handed to e once the commit is durable, and the
// destinations of the others woken. It returns the events and how many of
// their deliveries were leased.
func ingestLeasing(t *testing.T, e *Engine, st store.Store, n int, destinations []string, key func(i int) string) ([]store.Event, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	events, items := testItems(n, destinations, key, nil)
	leased := 0
	for _, it := range items {
		for i := range it.Deliveries {
			if it.Deliveries[i].Lease = e.Reserve(ctx, it.Deliveries[i]); it.Deliveries[i].Lease != nil {
				leased++
			}
		}
		inserted, err := st.Ingest(ctx, []store.IngestItem{it})
		if err != nil || inserted[0] != store.IngestStored {
			e.Unreserve(it.Deliveries)
			t.Fatalf("Ingest = %v, %v", inserted, err)
		}
		e.Offer(it.Event, it.Deliveries)
		for _, d := range it.Deliveries {
			if d.Lease == nil {
				e.Wake(d.Destination)
			}
		}
	}
	return events, leased
}

// waitCaughtUp waits until the destination's worker has caught up with
// its queue, as its first claim makes it, so that it leases at ingest.
func waitCaughtUp(t *testing.T, e *Engine, destination string) {
	t.Helper()
	w := e.workers[destination]
	testkit.Eventually(t, 10*time.Second, destination+" to catch up with its queue", func() error {
		w.mu.Lock()
		defer w.mu.Unlock()
		return testkit.Check(w.caughtUp, "not caught up")
	})
}

// leases returns the destination's hookrelay_delivery_leases_total.
func leases(t *testing.T, b testBundle, destination, how string) float64 {
	t.Helper()
	return counterValue(t, b.reg, "hookrelay_delivery_leases_total", map[string]string{"destination": destination, "how": how})
}

// TestLeaseAtIngestSendsWithoutClaim checks that deliveries leased at
// ingest are pushed, once each, as their first attempt, and recorded done
// without any claim finding them.
func TestLeaseAtIngestSendsWithoutClaim(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, nil)
		q := &countedClaims{Queue: b.queue}
		e, _, _ := startEngine(t, Options{
			Queue:        q,
			Destinations: []config.Destination{testDestination("d", ep.srv.URL)},
			Registerer:   b.reg,
			PollInterval: time.Hour, // only the first look and wakes claim
		})
		waitCaughtUp(t, e, "d")
		events, leased := ingestLeasing(t, e, b.store, 5, []string{"d"}, nil)
		if leased != 5 {
			t.Fatalf("%d of 5 deliveries leased at ingest", leased)
		}
		waitStatus(t, b.store, events, "d", store.StatusDone, 10*time.Second)

		if n := q.found.Load(); n != 0 {
			t.Errorf("%d claims found deliveries, want none", n)
		}
		if got, claimed := leases(t, b, "d", leasedAtIngest), leases(t, b, "d", leasedByClaim); got != 5 || claimed != 0 {
			t.Errorf("leases: %v at ingest, %v by claim; want 5 and 0", got, claimed)
		}
		hits := ep.byEvent()
		for _, ev := range events {
			hs := hits[ev.ID]
			if len(hs) != 1 {
				t.Errorf("event %s pushed %d times, want once", ev.ID, len(hs))
				continue
			}
			h := hs[0]
			if !bytes.Equal(h.body, ev.Body) || h.header.Get(HeaderAttempt) != "1" || !verifyStandard(testSecret, h.header, h.body, time.Now()) {
				t.Errorf("event %s: pushed body %q, attempt %q; want its body, attempt 1, a valid signature",
					ev.ID, h.body, h.header.Get(HeaderAttempt))
			}
			if d := deliveryOf(t, b.store, ev.ID, "d"); d.Attempts != 1 {
				t.Errorf("delivery of %s: %d attempts, want 1", ev.ID, d.Attempts)
			}
		}
	})
}

// TestLeaseAtIngestWindowFull checks that a delivery finding no room in
// its destination's window is created pending and claimed once room
// frees, and that the destination leases nothing more at ingest until a
// claim has caught up with its queue.
func TestLeaseAtIngestWindowFull(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep, release := newHangingEndpoint(t)
		dest := testDestination("d", ep.srv.URL)
		dest.Concurrency = 1 // a window of two until pushes are timed
		e, _, _ := startEngine(t, Options{
			Queue:        b.queue,
			Destinations: []config.Destination{dest},
			Registerer:   b.reg,
			PollInterval: time.Hour,
		})
		var once sync.Once
		open := func() { once.Do(release) }
		t.Cleanup(open)
		waitCaughtUp(t, e, "d")

		events, leased := ingestLeasing(t, e, b.store, 3, []string{"d"}, nil)
		if leased != 2 {
			t.Fatalf("%d of 3 deliveries leased at ingest, want the window's 2", leased)
		}
		if d := deliveryOf(t, b.store, events[2].ID, "d"); d.Status != store.StatusPending {
			t.Errorf("the delivery beyond the window is %s, want pending", d.Status)
		}
		w := e.workers["d"]
		w.mu.Lock()
		caughtUp := w.caughtUp
		w.mu.Unlock()
		if caughtUp {
			t.Error("the worker still leases at ingest after refusing a delivery for room")
		}

		open()
		waitStatus(t, b.store, events, "d", store.StatusDone, 10*time.Second)
		if got, claimed := leases(t, b, "d", leasedAtIngest), leases(t, b, "d", leasedByClaim); got != 2 || claimed != 1 {
			t.Errorf("leases: %v at ingest, %v by claim; want 2 and 1", got, claimed)
		}
		if n := len(ep.received()); n != 3 {
			t.Errorf("%d pushes, want 3", n)
		}
	})
}

// TestLeaseAtIngestRefused checks the deliveries that are created pending
// rather than leased at ingest: before the worker has caught up with its
// queue, with an ordering key, to a destination with a rate, paused, or
// not a push destination of the engine; and that Unreserve gives the room
// of a lease back.
func TestLeaseAtIngestRefused(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, nil)
		rated := testDestination("rated", ep.srv.URL)
		rated.Rate = config.Rate{Events: 100, Per: time.Second}
		dests := []config.Destination{
			testDestination("plain", ep.srv.URL), rated, testDestination("paused", ep.srv.URL),
		}
		ctx := context.Background()
		idle, err := New(Options{Queue: b.queue, Destinations: dests})
		if err != nil {
			t.Fatal(err)
		}
		if l := idle.Reserve(ctx, store.NewDelivery{Destination: "plain"}); l != nil {
			t.Errorf("a worker that has not claimed yet leased at ingest: %+v", l)
		}

		if err := b.store.SetPaused(ctx, "paused", true, "test", time.Now()); err != nil {
			t.Fatal(err)
		}
		e, _, _ := startEngine(t, Options{Queue: b.queue, Destinations: dests, PollInterval: time.Hour})
		for _, name := range []string{"plain", "rated"} {
			waitCaughtUp(t, e, name)
		}
		for _, tc := range []struct {
			what string
			d    store.NewDelivery
		}{
			{"an ordering key", store.NewDelivery{Destination: "plain", OrderingKey: "k"}},
			{"a rate", store.NewDelivery{Destination: "rated"}},
			{"a paused destination", store.NewDelivery{Destination: "paused"}},
			{"no such push destination", store.NewDelivery{Destination: "elsewhere"}},
		} {
			if l := e.Reserve(ctx, tc.d); l != nil {
				t.Errorf("%s: leased at ingest: %+v", tc.what, l)
			}
		}

		d := store.NewDelivery{Destination: "plain"}
		if d.Lease = e.Reserve(ctx, d); d.Lease == nil {
			t.Fatal("plain: not leased at ingest")
		}
		if until := time.Until(d.Lease.Until); d.Lease.Token == "" || until < 30*time.Second {
			t.Errorf("lease %+v: want a token and the push lease (ends in %v)", d.Lease, until)
		}
		w := e.workers["plain"]
		held := func() int {
			w.mu.Lock()
			defer w.mu.Unlock()
			return w.held
		}
		if n := held(); n != 1 {
			t.Errorf("held %d after a reservation, want 1", n)
		}
		e.Unreserve([]store.NewDelivery{d})
		if n := held(); n != 0 {
			t.Errorf("held %d after Unreserve, want 0", n)
		}
	})
}

// TestLeaseAtIngestAfterStop checks that a stopping engine leases nothing
// more at ingest, and that deliveries leased before it stopped and
// offered after are handed back to the queue, pending and due, their
// attempt uncounted, as claimed ones are.
func TestLeaseAtIngestAfterStop(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, nil)
		e, stop, done := startEngine(t, Options{
			Queue:        b.queue,
			Destinations: []config.Destination{testDestination("d", ep.srv.URL)},
			PollInterval: time.Hour,
		})
		waitCaughtUp(t, e, "d")
		ctx := context.Background()
		events, items := testItems(1, []string{"d"}, nil, nil)
		it := items[0]
		if it.Deliveries[0].Lease = e.Reserve(ctx, it.Deliveries[0]); it.Deliveries[0].Lease == nil {
			t.Fatal("not leased at ingest")
		}
		if _, err := b.store.Ingest(ctx, items); err != nil {
			t.Fatal(err)
		}
		stop()
		<-done
		if l := e.Reserve(ctx, store.NewDelivery{Destination: "d"}); l != nil {
			t.Errorf("a stopped engine leased at ingest: %+v", l)
		}
		e.Offer(it.Event, it.Deliveries)
		d := deliveryOf(t, b.store, events[0].ID, "d")
		if d.Status != store.StatusPending || d.Attempts != 0 {
			t.Errorf("delivery offered after the stop = %+v, want pending with no attempt", d)
		}
		if n := len(ep.received()); n != 0 {
			t.Errorf("%d pushes after the stop, want none", n)
		}
	})
}

// gatedClaims is a real queue whose claims, once hold is set, wait until
// it is cleared.
type gatedClaims struct {
	store.Queue
	*valve
}

func newGatedClaims(q store.Queue) *gatedClaims { return &gatedClaims{Queue: q, valve: newValve()} }

func (g *gatedClaims) ClaimDeliveries(ctx context.Context, req store.ClaimRequest) ([]store.Claim, error) {
	g.wait()
	return g.Queue.ClaimDeliveries(ctx, req)
}

// valve holds whoever waits at it while it is shut.
type valve struct {
	mu   sync.Mutex
	open *sync.Cond
	hold bool // guarded by mu
}

func newValve() *valve {
	v := &valve{}
	v.open = sync.NewCond(&v.mu)
	return v
}

// set shuts the valve (hold) or opens it.
func (v *valve) set(hold bool) {
	v.mu.Lock()
	v.hold = hold
	v.mu.Unlock()
	v.open.Broadcast()
}

// wait returns once the valve is open.
func (v *valve) wait() {
	v.mu.Lock()
	for v.hold {
		v.open.Wait()
	}
	v.mu.Unlock()
}

// failingClaims fails every claim, without looking at the queue, while
// fail is set: the worker gives back the room it reserved and stays
// behind.
type failingClaims struct {
	store.Queue
	fail atomic.Bool
}

func (f *failingClaims) ClaimDeliveries(ctx context.Context, req store.ClaimRequest) ([]store.Claim, error) {
	if f.fail.Load() {
		return nil, errors.New("claims are failing")
	}
	return f.Queue.ClaimDeliveries(ctx, req)
}

// TestLeaseAtIngestBehindWithinShare checks that a worker that has fallen
// behind keeps leasing at ingest, up to ingestShare deliveries waiting
// for its senders, and that a claim then still finds room for a full
// batch: the deliveries created pending beyond the share are claimed
// while every push is held up.
func TestLeaseAtIngestBehindWithinShare(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		pushes := newValve()
		ep := newEndpoint(t, func(hit, int) (int, http.Header) {
			pushes.wait()
			return http.StatusOK, nil
		})
		q := &failingClaims{Queue: b.queue}
		dest := testDestination("d", ep.srv.URL)
		dest.Concurrency = 1
		// A long timeout keeps the held-up pushes below claimShape's bound
		// on quick ones.
		dest.Timeout = config.Duration(5 * time.Minute)
		e, _, _ := startEngine(t, Options{
			Queue:        q,
			Destinations: []config.Destination{dest},
			Registerer:   b.reg,
			PollInterval: time.Hour,
		})
		t.Cleanup(func() { pushes.set(false) }) // before the engine stops
		w := e.workers["d"]
		w.speed.peak.Store(int64(time.Millisecond)) // pushes shown quick
		batch, window := w.claimShape()
		share := ingestShare(batch, window, w.concurrency)
		if batch != fastClaimFor(1) || window != fastWindowFor(1) || share != 4 {
			t.Fatalf("batch %d, window %d, share %d; want the quick shape of concurrency 1 and a share of 4", batch, window, share)
		}
		waitCaughtUp(t, e, "d")

		// Fall behind: the window fills with held-up pushes and the next
		// delivery is created pending; claims fail, so none catches up.
		q.fail.Store(true)
		pushes.set(true)
		filled, leased := ingestLeasing(t, e, b.store, window+1, []string{"d"}, nil)
		if leased != window {
			t.Fatalf("%d of %d deliveries leased at ingest, want the window's %d", leased, window+1, window)
		}
		pushes.set(false)
		waitStatus(t, b.store, filled[:window], "d", store.StatusDone, 10*time.Second)

		// Behind, with one push under way: ingest leases its share.
		pushes.set(true)
		pushed, _ := ingestLeasing(t, e, b.store, 1, []string{"d"}, nil)
		testkit.Eventually(t, 10*time.Second, "the push to start", func() error {
			return testkit.Check(len(ep.received()) == window+1, "%d pushes started", len(ep.received()))
		})
		shared, leased := ingestLeasing(t, e, b.store, share+1, []string{"d"}, nil)
		if leased != share {
			t.Fatalf("behind, %d of %d deliveries leased at ingest, want the share, %d", leased, share+1, share)
		}

		// A claim finds room for its batch beside the share: the two
		// pending deliveries are leased while every push is held up.
		pending := []store.Event{filled[window], shared[share]}
		q.fail.Store(false)
		e.Wake("d")
		waitStatus(t, b.store, pending, "d", store.StatusProcessing, 10*time.Second)

		pushes.set(false)
		waitStatus(t, b.store, append(append(filled, pushed...), shared...), "d", store.StatusDone, 10*time.Second)
		if got, claimed := leases(t, b, "d", leasedAtIngest), leases(t, b, "d", leasedByClaim); got != float64(window+1+share) || claimed != 2 {
			t.Errorf("leases: %v at ingest, %v by claim; want %d and 2", got, claimed, window+1+share)
		}
	})
}

// TestLeaseAtIngestBesideWokenDeliveries checks that a wake — new pending
// deliveries, here from another node — starts a claim without stopping
// leasing at ingest: while the claim is held up, the next event is still
// leased and pushed, and the woken deliveries are claimed and pushed once
// it goes on, with no poll to find them.
func TestLeaseAtIngestBesideWokenDeliveries(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, nil)
		q := newGatedClaims(b.queue)
		e, _, _ := startEngine(t, Options{
			Queue:        q,
			Destinations: []config.Destination{testDestination("d", ep.srv.URL)},
			Registerer:   b.reg,
			PollInterval: time.Hour,
		})
		t.Cleanup(func() { q.set(false) })
		waitCaughtUp(t, e, "d")
		q.set(true)
		pending := ingestEvents(t, b.store, 3, []string{"d"}, nil) // as another node's receiver would
		e.Wake("d")
		fresh, leased := ingestLeasing(t, e, b.store, 1, []string{"d"}, nil)
		if leased != 1 {
			t.Fatal("a wake stopped leasing at ingest")
		}
		waitStatus(t, b.store, fresh, "d", store.StatusDone, 10*time.Second)
		for _, ev := range pending {
			if d := deliveryOf(t, b.store, ev.ID, "d"); d.Status != store.StatusPending {
				t.Fatalf("a woken delivery is %s while claims are held, want pending", d.Status)
			}
		}
		q.set(false)
		waitStatus(t, b.store, pending, "d", store.StatusDone, 10*time.Second)
		if got, claimed := leases(t, b, "d", leasedAtIngest), leases(t, b, "d", leasedByClaim); got != 1 || claimed != 3 {
			t.Errorf("leases: %v at ingest, %v by claim; want 1 and 3", got, claimed)
		}
	})
}
