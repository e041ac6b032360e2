package storetest

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

// counts are a destination's deliveries by status, in the order of
// store.Statuses: pending, processing, failed, done, skipped, dead, purged.
type counts [7]int64

// checkCounts fails unless Stats at now counts exactly want for every
// destination that has deliveries (and nothing for any other), and unless
// those counts are what the deliveries listed with every event add up to.
func checkCounts(t *testing.T, s store.DB, step string, now time.Time, want map[string]counts) {
	t.Helper()
	got := map[string]counts{}
	for name, d := range stats(t, s, now).Destinations {
		if len(d.Counts) != len(store.Statuses) {
			t.Errorf("%s: %s has counts of %d statuses, want every one of %d", step, name, len(d.Counts), len(store.Statuses))
		}
		var c counts
		for i, st := range store.Statuses {
			c[i] = d.Counts[st]
		}
		got[name] = c
	}
	if !maps.Equal(got, want) {
		t.Errorf("%s: Stats counts %v, want %v", step, got, want)
	}
	if listed := listedCounts(t, s); !maps.Equal(got, listed) {
		t.Errorf("%s: Stats counts %v, but the listed deliveries add up to %v", step, got, listed)
	}
}

// listedCounts tallies the statuses of the deliveries listed with every
// stored event.
func listedCounts(t *testing.T, s store.DB) map[string]counts {
	t.Helper()
	out := map[string]counts{}
	cursor := ""
	for {
		events, next := listPage(t, s, store.ListRequest{Cursor: cursor, Limit: 1000})
		for _, e := range events {
			for _, d := range e.Deliveries {
				c := out[d.Destination]
				for i, st := range store.Statuses {
					if d.Status == st {
						c[i]++
					}
				}
				out[d.Destination] = c
			}
		}
		if next == "" {
			return out
		}
		cursor = next
	}
}

// testStatsExactThroughTransitions follows the counts through every way
// a delivery comes, changes status or goes: ingest fan-out (a duplicate
// adds nothing), claim, each outcome, release, a reclaimed expired lease,
// a completion after the lease was lost, replay (dry and real, a
// processing delivery left alone), backfill (an existing pair skipped),
// and prune.
func testStatsExactThroughTransitions(t *testing.T, s store.DB) {
	ops, q := s, s
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Millisecond) }
	ev := make([]store.Event, 6)
	for i := range ev {
		ev[i] = eventAt("stripe", fmt.Sprintf("evt_count_%d", i), at(i))
		dests := []string{"billing", "audit"}
		if i >= 4 {
			dests = dests[:1]
		}
		ingest(t, s, item(ev[i], dests...)) // one by one: delivery ids follow
	}
	checkInserted(t, ingest(t, s, item(ev[0], "billing", "audit")), false)
	now := at(100)
	want := map[string]counts{"billing": {6, 0, 0, 0, 0, 0}, "audit": {4, 0, 0, 0, 0, 0}}
	checkCounts(t, s, "ingest", now, want)

	cs := claim(t, q, "billing", 4, now)
	checkClaimed(t, cs, ev[0], ev[1], ev[2], ev[3])
	want["billing"] = counts{2, 4, 0, 0, 0, 0}
	checkCounts(t, s, "claim", now, want)

	failed := outcome(cs[1], store.StatusFailed, now)
	failed.NextAttemptAt = now.Add(time.Hour)
	complete(t, q, outcome(cs[0], store.StatusDone, now))
	complete(t, q, failed)
	complete(t, q, outcome(cs[2], store.StatusSkipped, now))
	complete(t, q, outcome(cs[3], store.StatusDead, now))
	want["billing"] = counts{2, 0, 1, 1, 1, 1}
	checkCounts(t, s, "outcomes", now, want)

	as := claim(t, q, "audit", 2, now)
	if err := q.ReleaseDeliveries(context.Background(), []store.Release{{DeliveryID: as[1].Delivery.ID, LeaseToken: as[1].LeaseToken}}); err != nil {
		t.Fatalf("ReleaseDeliveries: %v", err)
	}
	want["audit"] = counts{3, 1, 0, 0, 0, 0}
	checkCounts(t, s, "claim and release", now, want)

	expired := now.Add(2 * testLease)
	reclaimed := claim(t, q, "audit", 10, expired) // as[0]'s lease ran out
	if len(reclaimed) != 4 {
		t.Fatalf("claimed %d audit deliveries after the lease ran out, want 4", len(reclaimed))
	}
	want["audit"] = counts{0, 4, 0, 0, 0, 0}
	checkCounts(t, s, "reclaim", expired, want)
	checkLeaseLost(t, q, outcome(as[0], store.StatusDone, expired))
	for _, c := range reclaimed {
		complete(t, q, outcome(c, store.StatusDone, expired))
	}
	want["audit"] = counts{0, 0, 0, 4, 0, 0}
	checkCounts(t, s, "outcome after a lost lease", expired, want)

	busy := claim(t, q, "billing", 1, expired)
	checkClaimed(t, busy, ev[4])
	want["billing"] = counts{1, 1, 1, 1, 1, 1}
	f := store.EventFilter{Destination: "billing"}
	dry := replay(t, ops, store.ReplayRequest{Filter: f, DryRun: true, Now: expired})
	checkCounts(t, s, "dry replay", expired, want)
	res := replay(t, ops, store.ReplayRequest{Filter: f, Now: expired})
	if wantRes := (store.ReplayResult{Matched: 6, Rearmed: 5, InFlight: 1}); res != wantRes || dry.Matched != res.Matched || dry.InFlight != res.InFlight {
		t.Fatalf("replay = %+v after a dry run of %+v, want %+v", res, dry, wantRes)
	}
	want["billing"] = counts{5, 1, 0, 0, 0, 0}
	checkCounts(t, s, "replay", expired, want)
	complete(t, q, outcome(busy[0], store.StatusDone, expired))
	want["billing"] = counts{5, 0, 0, 1, 0, 0}
	checkCounts(t, s, "outcome of the delivery a replay left alone", expired, want)

	created, err := ops.CreateDeliveries(context.Background(), []store.BackfillDelivery{
		{EventID: ev[0].ID, Destination: "late"}, {EventID: ev[1].ID, Destination: "late"},
		{EventID: ev[2].ID, Destination: "late"}, {EventID: ev[0].ID, Destination: "billing"},
		{EventID: "evt_count_gone", Destination: "late"},
	}, expired)
	if err != nil || created != 3 {
		t.Fatalf("CreateDeliveries = %d, %v; want 3 created", created, err)
	}
	want["late"] = counts{3, 0, 0, 0, 0, 0}
	checkCounts(t, s, "backfill", expired, want)

	for _, dest := range []string{"billing", "late"} {
		for _, c := range claim(t, q, dest, 10, expired) {
			complete(t, q, outcome(c, store.StatusDone, expired))
		}
	}
	want["billing"], want["late"] = counts{0, 0, 0, 6, 0, 0}, counts{0, 0, 0, 3, 0, 0}
	checkCounts(t, s, "all done", expired, want)

	if n := prune(t, ops, store.PruneRequest{DoneBefore: at(2), DeadBefore: at(2), Limit: 10}); n != 2 {
		t.Fatalf("pruned %d events, want ev[0] and ev[1]", n)
	}
	want = map[string]counts{"billing": {0, 0, 0, 4, 0, 0}, "audit": {0, 0, 0, 2, 0, 0}, "late": {0, 0, 0, 1, 0, 0}}
	checkCounts(t, s, "prune", expired, want)
	if n := prune(t, ops, store.PruneRequest{DoneBefore: now, DeadBefore: now, Limit: 10}); n != 4 {
		t.Fatalf("pruned %d events, want the other 4", n)
	}
	checkCounts(t, s, "prune of everything", expired, map[string]counts{})
}

// testStatsExactUnderConcurrency has ingesters, claimers completing with
// every outcome or releasing, and replays run at once, and then counts
// exactly what the deliveries add up to.
func testStatsExactUnderConcurrency(t *testing.T, s store.DB) {
	ops, q := s, s
	dests := []string{"billing", "audit"}
	const ingesters, perIngester = 4, 40
	now := baseTime.Add(time.Hour)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	stop := make(chan struct{})
	for i := range ingesters {
		wg.Go(func() {
			for j := range perIngester {
				e := eventAt("stripe", fmt.Sprintf("evt_conc_%d_%d", i, j), baseTime.Add(time.Duration(j)*time.Millisecond))
				if _, err := s.Ingest(context.Background(), []store.IngestItem{item(e, dests...)}); err != nil {
					fail(fmt.Errorf("ingest: %w", err))
				}
			}
		})
	}
	var (
		claimers sync.WaitGroup
		rounds   atomic.Int64             // claim rounds ended
		round    = make(chan struct{}, 1) // a claim round ended since the last receive
	)
	for i := range 2 * len(dests) {
		claimers.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			for {
				select {
				case <-stop:
					return
				default:
				}
				cs, err := q.ClaimDeliveries(context.Background(), store.ClaimRequest{Destination: dests[i%len(dests)], Max: 3, Lease: testLease, Now: now})
				if err != nil {
					fail(fmt.Errorf("claim: %w", err))
					return
				}
				for _, c := range cs {
					if err := finish(q, c, r, now); err != nil {
						fail(err)
					}
				}
				rounds.Add(1)
				select {
				case round <- struct{}{}:
				default:
				}
			}
		})
	}
	if f, ok := s.(folder); ok {
		claimers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := f.FoldCounts(context.Background()); err != nil {
					fail(fmt.Errorf("fold counts: %w", err))
					return
				}
			}
		})
	}
	claimers.Go(func() {
		for range 5 {
			if _, err := ops.Replay(context.Background(), store.ReplayRequest{Filter: store.EventFilter{Status: store.StatusDead}, Now: now}); err != nil {
				fail(fmt.Errorf("replay: %w", err))
			}
			// A claim round ends after this replay, before the next.
			select {
			case <-round:
			default:
			}
			select {
			case <-round:
			case <-stop:
			}
		}
	})
	wg.Wait()
	// Every claimer takes a few more rounds at what was ingested.
	n := rounds.Load()
	testkit.Eventually(t, 30*time.Second, "the claimers to work on what was ingested", func() error {
		mu.Lock()
		failed := len(errs) > 0 // reported below
		mu.Unlock()
		return testkit.Check(failed || rounds.Load() >= n+int64(3*2*len(dests)), "%d claim rounds since the last ingest", rounds.Load()-n)
	})
	close(stop)
	claimers.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d errors, the first: %v", len(errs), errs[0])
	}
	listed := listedCounts(t, s)
	var total int64
	for _, c := range listed {
		for _, n := range c {
			total += n
		}
	}
	if want := int64(ingesters * perIngester * len(dests)); total != want {
		t.Fatalf("%d deliveries listed, want %d", total, want)
	}
	checkCounts(t, s, "after concurrent work", now, listed)
}

// folder is a store that folds the deltas its counts are kept in; the
// concurrency test folds all along, to show that a fold never changes a
// count.
type folder interface {
	FoldCounts(ctx context.Context) error
}

// finish records a random outcome of c, or releases it.
func finish(q store.Queue, c store.Claim, r *rand.Rand, now time.Time) error {
	statuses := []store.DeliveryStatus{store.StatusDone, store.StatusFailed, store.StatusSkipped, store.StatusDead}
	if r.IntN(5) == 0 {
		if err := q.ReleaseDeliveries(context.Background(), []store.Release{{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken}}); err != nil {
			return fmt.Errorf("release: %w", err)
		}
		return nil
	}
	o := outcome(c, statuses[r.IntN(len(statuses))], now)
	o.NextAttemptAt = now
	if err := q.CompleteDelivery(context.Background(), o); err != nil {
		return fmt.Errorf("complete: %w", err)
	}
	return nil
}
