package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// NodesFunc makes a fresh, empty, migrated database for one test and
// returns a function that opens another store on it: one relay node each.
// Every store it opens is closed when the test ends.
type NodesFunc func(t *testing.T) func() store.DB

// twoNodeTests are the checks of two nodes sharing one database, each
// through a store of its own.
var twoNodeTests = []struct {
	name string
	run  func(t *testing.T, a, b store.DB)
}{
	{"LeasedAtIngestTakenOverByOtherNode", testLeasedTakenOverByOtherNode},
	{"OutcomesLostInCrashDeliveredAgain", testOutcomesLostInCrash},
	{"OrderingKeyHeldAcrossNodes", testOrderingKeyAcrossNodes},
	{"OrderingKeysRacedByTwoNodes", testOrderingKeysRacedByTwoNodes},
}

// RunTwoNodes runs the checks of two relay nodes on one database: a
// delivery leased at ingest by one node, whose lease runs out, is taken
// over by the other, whose late outcome then wins; outcomes a node never
// committed (it died between the destination's 2xx and the commit) are
// delivered again, those it committed are not; and an ordering key's
// deliveries are held by one node at a time, in order, however the two
// nodes' claims interleave.
func RunTwoNodes(t *testing.T, nodes NodesFunc) {
	for _, tc := range twoNodeTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			open := nodes(t)
			tc.run(t, open(), open())
		})
	}
}

// testLeasedTakenOverByOtherNode has node a store an event with its
// delivery leased to itself, as a node that receives and delivers does.
// Node b cannot claim it while the lease lives; once it has run out (a
// died), b claims it — a second attempt under a new token — and a's late
// outcome is refused, b's recorded.
func testLeasedTakenOverByOtherNode(t *testing.T, a, b store.DB) {
	until := baseTime.Add(testLease)
	it, l := leasedItem(dueEvent("evt_two_nodes", baseTime), "billing", "tok-node-a", until)
	ingest(t, a, it)

	checkClaimed(t, claim(t, b, "billing", 10, until.Add(-time.Millisecond)))
	taken := claim(t, b, "billing", 10, until)
	checkClaimed(t, taken, it.Event)
	if c := taken[0]; c.Delivery.ID != l.DeliveryID || c.Delivery.Attempts != 2 || c.LeaseToken == l.Token {
		t.Fatalf("node b took %+v (token %q), want delivery %d, attempt 2, a token of its own", c.Delivery, c.LeaseToken, l.DeliveryID)
	}
	checkLeaseLost(t, a, outcome(leasedClaim(it.Event, "billing", l), store.StatusDone, until))
	complete(t, b, outcome(taken[0], store.StatusDone, until.Add(time.Second)))
	if d := theDelivery(t, a, it.Event.ID); d.Status != store.StatusDone || d.Attempts != 2 {
		t.Errorf("delivery as node a reads it = %+v, want done after 2 attempts", d)
	}
}

// testOutcomesLostInCrash has node a hold four deliveries, two leased at
// ingest and two claimed. Their destination answered 2xx to all four;
// a's outcome committer recorded the first two in one batch and then a
// died — its store closed — before the batch of the other two committed.
// Once the leases run out, node b claims exactly those two and delivers
// them again: at least once, never lost, and nothing recorded is sent
// twice.
func testOutcomesLostInCrash(t *testing.T, a, b store.DB) {
	ctx := context.Background()
	until := baseTime.Add(testLease)
	leased1, l1 := leasedItem(dueEvent("evt_crash_l1", baseTime), "billing", "tok-l1", until)
	leased2, l2 := leasedItem(dueEvent("evt_crash_l2", baseTime), "billing", "tok-l2", until)
	ingest(t, a, leased1, leased2)
	claimed1, claimed2 := dueEvent("evt_crash_c1", baseTime), dueEvent("evt_crash_c2", baseTime)
	ingest(t, a, item(claimed1, "billing"), item(claimed2, "billing"))
	held := claim(t, a, "billing", 10, baseTime)
	checkClaimed(t, held, claimed1, claimed2)

	now := baseTime.Add(time.Second)
	committed := []store.Completion{
		outcome(leasedClaim(leased1.Event, "billing", l1), store.StatusDone, now),
		outcome(held[0], store.StatusDone, now),
	}
	recorded, err := a.CompleteDeliveries(ctx, committed)
	if err != nil || len(recorded) != 2 || !recorded[0] || !recorded[1] {
		t.Fatalf("CompleteDeliveries = %v, %v; want both recorded", recorded, err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("node a's Close: %v", err)
	}

	checkClaimed(t, claim(t, b, "billing", 10, until.Add(-time.Millisecond)))
	again := claim(t, b, "billing", 10, until)
	checkClaimed(t, again, leased2.Event, claimed2)
	for i, c := range again {
		if c.Delivery.Attempts != 2 {
			t.Errorf("redelivery %d = %+v, want its second attempt", i, c.Delivery)
		}
	}
	recorded, err = b.CompleteDeliveries(ctx, []store.Completion{
		outcome(again[0], store.StatusDone, until), outcome(again[1], store.StatusDone, until),
	})
	if err != nil || len(recorded) != 2 || !recorded[0] || !recorded[1] {
		t.Fatalf("node b's CompleteDeliveries = %v, %v; want both recorded", recorded, err)
	}
	for _, e := range []store.Event{leased1.Event, claimed1} {
		if d := theDelivery(t, b, e.ID); d.Status != store.StatusDone || d.Attempts != 1 {
			t.Errorf("delivery of %s, recorded before the crash = %+v, want done after 1 attempt", e.ProviderEventID, d)
		}
	}
	for _, e := range []store.Event{leased2.Event, claimed2} {
		if d := theDelivery(t, b, e.ID); d.Status != store.StatusDone || d.Attempts != 2 {
			t.Errorf("delivery of %s, lost in the crash = %+v, want done after 2 attempts", e.ProviderEventID, d)
		}
	}
	if l2.DeliveryID != again[0].Delivery.ID {
		t.Errorf("node b took delivery %d, want the one leased at ingest, %d", again[0].Delivery.ID, l2.DeliveryID)
	}
}

// testOrderingKeyAcrossNodes checks that a key's head claimed by one
// node holds the key for the other, which meanwhile gets the other keys'
// heads, and that either node gets a key's next delivery once the node
// holding its head has recorded the head's outcome.
func testOrderingKeyAcrossNodes(t *testing.T, a, b store.DB) {
	a1, b1, a2, b2, u := interleaved(t, a)
	now := baseTime.Add(time.Minute)
	first := claim(t, a, "billing", 1, now)
	checkClaimed(t, first, a1)
	second := claim(t, b, "billing", 10, now)
	checkClaimed(t, second, b1, u)
	checkClaimed(t, claim(t, b, "billing", 10, now))
	checkClaimed(t, claim(t, a, "billing", 10, now))

	complete(t, a, outcome(first[0], store.StatusDone, now))
	checkClaimed(t, claim(t, b, "billing", 10, now), a2)
	complete(t, b, outcome(second[0], store.StatusDone, now))
	checkClaimed(t, claim(t, a, "billing", 10, now), b2)
	checkClaimed(t, claim(t, b, "billing", 10, now))
}

// testOrderingKeysRacedByTwoNodes has two nodes, each with two claimers,
// claim and complete the deliveries of eight keys at once, and checks
// that each key's deliveries were claimed in their order, never two of
// one key held at once, each once.
func testOrderingKeysRacedByTwoNodes(t *testing.T, a, b store.DB) {
	const keys, perKey = 8, 6
	var items []store.IngestItem
	want := map[string][]string{} // key: event ids in order
	for i := range perKey {
		for k := range keys {
			key := fmt.Sprintf("key-%d", k)
			e := orderedEvent(fmt.Sprintf("evt_race_%d_%d", k, i), baseTime.Add(time.Duration(i)*time.Second), baseTime)
			items = append(items, keyed(e, "billing", key))
			want[key] = append(want[key], e.ID)
		}
	}
	ingest(t, a, items...)

	now := baseTime.Add(time.Minute)
	var (
		mu      sync.Mutex
		held    = map[string]bool{}
		got     = map[string][]string{}
		claimed int
		wg      sync.WaitGroup
	)
	for _, node := range []store.DB{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for idle := 0; idle < 5000; {
				cs, err := node.ClaimDeliveries(context.Background(), store.ClaimRequest{Destination: "billing", Max: 3, Lease: testLease, Now: now})
				if err != nil {
					t.Errorf("ClaimDeliveries: %v", err)
					return
				}
				mu.Lock()
				for _, c := range cs {
					key := c.Delivery.OrderingKey
					if held[key] {
						t.Errorf("key %s claimed while another delivery of it is held", key)
					}
					held[key] = true
					got[key] = append(got[key], c.Delivery.EventID)
					claimed++
				}
				done := claimed == keys*perKey
				mu.Unlock()
				if len(cs) == 0 {
					if done {
						return
					}
					idle++
					time.Sleep(time.Millisecond)
					continue
				}
				comps := make([]store.Completion, len(cs))
				for i, c := range cs {
					comps[i] = outcome(c, store.StatusDone, now)
				}
				// The keys are let go once the outcomes are committed,
				// before any claim that follows the commit is looked at.
				mu.Lock()
				recorded, err := node.CompleteDeliveries(context.Background(), comps)
				for _, c := range cs {
					held[c.Delivery.OrderingKey] = false
				}
				mu.Unlock()
				if err != nil || len(recorded) != len(comps) {
					t.Errorf("CompleteDeliveries = %v, %v", recorded, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for key, ids := range want {
		if fmt.Sprint(got[key]) != fmt.Sprint(ids) {
			t.Errorf("key %s claimed as %v, want %v", key, got[key], ids)
		}
	}
}
