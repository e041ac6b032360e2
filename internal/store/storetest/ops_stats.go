package storetest

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// stats calls Stats and fails the test on error or nil maps.
func stats(t *testing.T, ops store.Operations, now time.Time) store.Stats {
	t.Helper()
	st, err := ops.Stats(context.Background(), now)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if st.Destinations == nil || st.Sources == nil {
		t.Fatalf("Stats = %+v, want non-nil maps", st)
	}
	return st
}

// testStatsEmpty reports nothing on an empty store.
func testStatsEmpty(t *testing.T, s store.DB) {
	st := stats(t, s, baseTime)
	if len(st.Destinations) != 0 || len(st.Sources) != 0 {
		t.Errorf("Stats of an empty store = %+v, want empty maps", st)
	}
}

// testStatsCounts counts each destination's deliveries by status, every
// status present, and the age of its oldest due pending or failed one.
func testStatsCounts(t *testing.T, s store.DB) {
	ops, q := s, s
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Second) }
	var items []store.IngestItem
	ev := make([]store.Event, 8)
	for i := range ev {
		ev[i] = eventAt("stripe", fmt.Sprintf("evt_stats_%d", i), at(i))
		items = append(items, item(ev[i], "billing"))
	}
	items = append(items, item(eventAt("stripe", "evt_audit", at(20)), "audit"))
	ingest(t, s, items...)
	settled := at(10)
	settle(t, s, "billing", settled, map[string]store.DeliveryStatus{
		ev[0].ID: store.StatusDone, ev[1].ID: store.StatusDone, ev[2].ID: store.StatusSkipped,
		ev[3].ID: store.StatusDead, ev[4].ID: store.StatusProcessing, ev[5].ID: store.StatusFailed,
	})
	// ev[5] failed, due at settled + 1h; ev[6] and ev[7] pending, due at
	// their receive time; audit's one pending is not due until at(20).
	now := at(15)
	st := stats(t, ops, now)
	want := map[string]store.DestinationStats{
		"billing": {Counts: map[store.DeliveryStatus]int64{
			store.StatusPending: 2, store.StatusProcessing: 1, store.StatusFailed: 1,
			store.StatusDone: 2, store.StatusSkipped: 1, store.StatusDead: 1, store.StatusPurged: 0,
		}, OldestPendingAge: now.Sub(stored(at(6)))},
		"audit": {Counts: map[store.DeliveryStatus]int64{
			store.StatusPending: 1, store.StatusProcessing: 0, store.StatusFailed: 0,
			store.StatusDone: 0, store.StatusSkipped: 0, store.StatusDead: 0, store.StatusPurged: 0,
		}},
	}
	checkStats(t, st.Destinations, want)

	// Once the failed one is due, it is the oldest: due since settled + 1h.
	later := settled.Add(2 * time.Hour)
	for _, c := range claim(t, q, "billing", 2, at(9)) { // ev[6], ev[7]
		complete(t, q, outcome(c, store.StatusDone, at(9)))
	}
	st = stats(t, ops, later)
	want["billing"].Counts[store.StatusPending] = 0
	want["billing"].Counts[store.StatusDone] = 4
	checkStats(t, st.Destinations, map[string]store.DestinationStats{
		"billing": {Counts: want["billing"].Counts, OldestPendingAge: later.Sub(stored(settled.Add(time.Hour)))},
		"audit":   {Counts: want["audit"].Counts, OldestPendingAge: later.Sub(stored(at(20)))},
	})
}

// checkStats fails unless got is want.
func checkStats(t *testing.T, got, want map[string]store.DestinationStats) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("stats of %d destinations, want %d: %+v", len(got), len(want), got)
	}
	for name, w := range want {
		g := got[name]
		if !maps.Equal(g.Counts, w.Counts) {
			t.Errorf("%s: counts %v, want %v", name, g.Counts, w.Counts)
		}
		if g.OldestPendingAge != w.OldestPendingAge {
			t.Errorf("%s: OldestPendingAge %v, want %v", name, g.OldestPendingAge, w.OldestPendingAge)
		}
	}
}

// testCountIngest adds ingest counts to each source's totals.
func testCountIngest(t *testing.T, s store.DB) {
	for _, counts := range []map[string]store.SourceStats{
		{"stripe": {Received: 10, Duplicates: 2, Rejected: 1}, "github": {Received: 1}},
		{},
		nil,
		{"stripe": {Received: 5, Rejected: 3}, "shop": {Rejected: 7}},
	} {
		if err := s.CountIngest(context.Background(), counts); err != nil {
			t.Fatalf("CountIngest(%v): %v", counts, err)
		}
	}
	got := stats(t, s, baseTime).Sources
	want := map[string]store.SourceStats{
		"stripe": {Received: 15, Duplicates: 2, Rejected: 4},
		"github": {Received: 1},
		"shop":   {Rejected: 7},
	}
	if !maps.Equal(got, want) {
		t.Errorf("Sources = %v, want %v", got, want)
	}
}
