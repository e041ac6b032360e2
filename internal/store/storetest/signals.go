package storetest

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

func countSlots(t *testing.T, sig store.Signals, now time.Time, counts ...store.SlotCount) {
	t.Helper()
	if err := sig.CountSlots(context.Background(), counts, now); err != nil {
		t.Fatalf("CountSlots: %v", err)
	}
}

// testSlotUsage adds slot counts over several flushes and hours, reports
// each slot's latest use and its count since a time, and forgets hours past
// their keep.
func testSlotUsage(t *testing.T, s store.DB) {
	ctx := context.Background()
	day := baseTime.Truncate(time.Hour)
	old := day.Add(-store.SlotUsageKeep - 2*time.Hour)
	countSlots(t, s, old, store.SlotCount{Source: "stripe", Secret: "fp2", Verified: 9, Last: old.Add(time.Minute)})
	countSlots(t, s, day.Add(-72*time.Hour),
		store.SlotCount{Source: "stripe", Secret: "fp1", Verified: 5, Last: day.Add(-72 * time.Hour)},
		store.SlotCount{Source: "stripe", Secret: "fp0", Verified: 2, Last: day.Add(-72 * time.Hour)})
	countSlots(t, s, day.Add(10*time.Minute),
		store.SlotCount{Source: "stripe", Secret: "fp0", Verified: 3, Last: day.Add(10 * time.Minute)},
		store.SlotCount{Source: "github", Secret: "fp0", Verified: 1, Last: day.Add(5 * time.Minute)})
	// A second flush into the same hour adds, and keeps the latest time
	// even when it arrives with an older one.
	countSlots(t, s, day.Add(20*time.Minute),
		store.SlotCount{Source: "stripe", Secret: "fp0", Verified: 4, Last: day.Add(time.Minute)})

	got, err := s.SlotUsage(ctx, day.Add(-24*time.Hour))
	if err != nil {
		t.Fatalf("SlotUsage: %v", err)
	}
	want := []store.SlotUsage{
		{Source: "github", Secret: "fp0", LastVerified: stored(day.Add(5 * time.Minute)), Verified: 1},
		{Source: "stripe", Secret: "fp0", LastVerified: stored(day.Add(10 * time.Minute)), Verified: 7},
		{Source: "stripe", Secret: "fp1", LastVerified: stored(day.Add(-72 * time.Hour)), Verified: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SlotUsage =\n%+v\nwant\n%+v (fp2 past its keep is gone)", got, want)
	}
	got, err = s.SlotUsage(ctx, day.Add(-100*time.Hour))
	if err != nil {
		t.Fatalf("SlotUsage: %v", err)
	}
	if len(got) != 3 || got[1].Verified != 9 || got[2].Verified != 5 {
		t.Errorf("SlotUsage over 100h = %+v, want stripe fp0 at 9 and fp1 at 5", got)
	}
}

// testRecentEventTimes returns the provider times among a source's newest
// events only, newest first, skipping events without one.
func testRecentEventTimes(t *testing.T, s store.DB) {
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Second) }
	var items []store.IngestItem
	for i := range 6 {
		e := eventAt("stripe", fmt.Sprintf("evt_lag_%d", i), at(i))
		e.OccurredAt = at(i).Add(-time.Duration(i) * time.Minute)
		if i == 4 {
			e.OccurredAt = time.Time{}
		}
		items = append(items, item(e))
	}
	items = append(items, item(eventAt("github", "gh_1", at(9))))
	ingest(t, s, items...)

	got, err := s.RecentEventTimes(context.Background(), "stripe", 3)
	if err != nil {
		t.Fatalf("RecentEventTimes: %v", err)
	}
	// The newest three are 5, 4 (no provider time) and 3.
	want := []store.EventTimes{
		{OccurredAt: stored(at(5).Add(-5 * time.Minute)), ReceivedAt: stored(at(5))},
		{OccurredAt: stored(at(3).Add(-3 * time.Minute)), ReceivedAt: stored(at(3))},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RecentEventTimes =\n%+v\nwant\n%+v", got, want)
	}
	got, err = s.RecentEventTimes(context.Background(), "nosuch", 3)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("RecentEventTimes of an unknown source = %v, %v; want an empty slice", got, err)
	}
}

// testNoPendingMigrations finds nothing to apply on a migrated store.
func testNoPendingMigrations(t *testing.T, s store.DB) {
	pending, err := s.PendingMigrations(context.Background())
	if err != nil || pending == nil || len(pending) != 0 {
		t.Errorf("PendingMigrations of a migrated store = %v, %v; want none", pending, err)
	}
}
