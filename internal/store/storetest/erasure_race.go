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

// testPurgeRacesBackfill purges events one by one, oldest first, while a
// backfill gives them deliveries one by one, newest first, and a replay
// re-arms them: whatever the order in which the two meet on an event, no
// delivery of a purged event is left due.
func testPurgeRacesBackfill(t *testing.T, s store.DB) {
	ctx := context.Background()
	now := baseTime.Add(time.Hour)
	var (
		items  []store.IngestItem
		events []store.Event
	)
	for i := range raceEvents {
		e := eventAt("stripe", fmt.Sprintf("evt_erase_%d", i), baseTime.Add(time.Duration(i)*time.Millisecond))
		items = append(items, item(e, "billing"))
		events = append(events, e)
	}
	ingest(t, s, items...)

	var wg sync.WaitGroup
	wg.Go(func() {
		for _, e := range slices.Backward(events) {
			ds := []store.BackfillDelivery{{EventID: e.ID, Destination: "crm"}}
			if _, err := s.CreateDeliveries(ctx, ds, now); err != nil {
				t.Errorf("CreateDeliveries: %v", err)
				return
			}
			_, err := s.Replay(ctx, store.ReplayRequest{Filter: store.EventFilter{IDs: []string{e.ID}}, Actor: "ops", Now: now})
			if err != nil {
				t.Errorf("Replay: %v", err)
				return
			}
		}
	})
	for _, e := range events {
		if _, err := s.PurgeEvents(ctx, store.PurgeRequest{IDs: []string{e.ID}, Actor: "ops", Reason: "race", Now: now}); err != nil {
			t.Fatalf("PurgeEvents: %v", err)
		}
	}
	wg.Wait()

	for _, e := range events {
		for _, d := range deliveries(t, s, e.ID) {
			if d.Status != store.StatusPurged {
				t.Errorf("a purged event's delivery to %s is %s", d.Destination, d.Status)
			}
		}
	}
	for _, dest := range []string{"billing", "crm"} {
		if cs := claim(t, s, dest, raceEvents, now.Add(time.Hour)); len(cs) != 0 {
			t.Errorf("claimed %d deliveries of purged events to %s", len(cs), dest)
		}
	}
}
