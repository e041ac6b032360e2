package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// raceEvents is how many events the prune race tests store.
const raceEvents = 100

// pruneAlongside stores raceEvents old events, each with one delivery to
// billing, done; then runs act on each event, newest first, while
// another goroutine prunes in small batches, oldest first, and prunes what is left. act
// tells whether it gave the event live work, which must then survive,
// while every other event must be gone.
func pruneAlongside(t *testing.T, s store.DB, act func(e store.Event, now time.Time) (live bool)) {
	now := baseTime.Add(100 * 24 * time.Hour)
	var (
		items  []store.IngestItem
		events []store.Event
		done   = map[string]store.DeliveryStatus{}
	)
	for i := range raceEvents {
		e := eventAt("stripe", fmt.Sprintf("evt_race_%d", i), baseTime.Add(time.Duration(i)*time.Millisecond))
		items = append(items, item(e, "billing"))
		events = append(events, e)
		done[e.ID] = store.StatusDone
	}
	ingest(t, s, items...)
	settle(t, s, "billing", now, done)

	req := store.PruneRequest{DoneBefore: now.Add(-pruneDone), DeadBefore: now.Add(-pruneDead), Limit: 7}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.Prune(context.Background(), req); err != nil {
				t.Errorf("Prune: %v", err)
				return
			}
		}
	})
	live := map[string]bool{}
	for _, e := range slices.Backward(events) { // newest first: the pruner starts from the oldest
		live[e.ID] = act(e, now)
	}
	close(stop)
	wg.Wait()
	for prune(t, s, req) > 0 {
	}

	n := 0
	for _, e := range events {
		if live[e.ID] {
			n++
		}
	}
	t.Logf("%d of %d events were given live work while being pruned", n, len(events))
	for _, e := range events {
		_, err := s.GetEvent(context.Background(), e.ID)
		if exists := err == nil; exists != live[e.ID] {
			t.Errorf("event %s given live work %t, exists %t (GetEvent: %v)", e.ProviderEventID, live[e.ID], exists, err)
		}
	}
}

// testPruneRacesReplay re-arms events while they are pruned: an event
// whose delivery a replay re-armed is never deleted.
func testPruneRacesReplay(t *testing.T, s store.DB) {
	pruneAlongside(t, s, func(e store.Event, now time.Time) bool {
		res, err := s.Replay(context.Background(), store.ReplayRequest{Filter: store.EventFilter{IDs: []string{e.ID}}, Now: now})
		if err != nil {
			t.Errorf("Replay: %v", err)
		}
		return res.Rearmed == 1
	})
}

// testPruneRacesBackfill backfills events while they are pruned: a
// backfill never fails on an event being deleted, and an event it gave a
// delivery is never deleted.
func testPruneRacesBackfill(t *testing.T, s store.DB) {
	pruneAlongside(t, s, func(e store.Event, now time.Time) bool {
		n, err := s.CreateDeliveries(context.Background(), []store.BackfillDelivery{{EventID: e.ID, Destination: "late"}}, now)
		if err != nil {
			t.Errorf("CreateDeliveries: %v", err)
		}
		return n == 1
	})
}
