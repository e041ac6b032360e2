package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testRearmWakes checks, on a driver with a listener, that a replay that
// re-arms deliveries and a backfill that creates some wake the listeners
// of their destinations, and that a dry run, a replay that re-arms
// nothing and a backfill that creates nothing wake none. (Notifications
// arrive in commit order, so a later ingest's proves that nothing came
// before it.)
func testRearmWakes(t *testing.T, s store.DB) {
	ch, p, ok := listenUnique(t, s)
	if !ok {
		return
	}
	mark := func(name string) {
		t.Helper()
		ingest(t, s, item(newEvent("github", p+name), p+name))
		if got := nextWoken(t, ch, p); got != p+name {
			t.Fatalf("woken %q, want %q", got, p+name)
		}
	}

	now := baseTime.Add(time.Minute)
	e := newEvent("stripe", p+"evt")
	ingest(t, s, item(e, p+"billing"))
	settle(t, s, p+"billing", now, map[string]store.DeliveryStatus{e.ID: store.StatusDone})
	for nextWoken(t, ch, p) != p+"billing" { // the ingest's, and any of the settling
	}
	mark("settled")

	f := store.EventFilter{IDs: []string{e.ID}}
	replay(t, s, store.ReplayRequest{Filter: f, DryRun: true, Now: now})
	replay(t, s, store.ReplayRequest{Filter: store.EventFilter{IDs: []string{e.ID}, Status: store.StatusDead}, Now: now})
	mark("nothing-rearmed")

	if res := replay(t, s, store.ReplayRequest{Filter: f, Now: now}); res.Rearmed != 1 {
		t.Fatalf("replay = %+v, want 1 re-armed", res)
	}
	if got := nextWoken(t, ch, p); got != p+"billing" {
		t.Fatalf("replay woke %q, want %q", got, p+"billing")
	}
	late := []store.BackfillDelivery{{EventID: e.ID, Destination: p + "late"}}
	for range 2 { // the second creates nothing
		if _, err := s.CreateDeliveries(context.Background(), late, now); err != nil {
			t.Fatalf("CreateDeliveries: %v", err)
		}
	}
	if got := nextWoken(t, ch, p); got != p+"late" {
		t.Fatalf("backfill woke %q, want %q", got, p+"late")
	}
	mark("nothing-created")
}

// nextWoken returns the next name on ch that starts with prefix, failing
// the test after a while.
func nextWoken(t *testing.T, ch <-chan string, prefix string) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case name, ok := <-ch:
			if !ok {
				t.Fatal("notification channel closed")
			}
			if strings.HasPrefix(name, prefix) {
				return name
			}
		case <-timeout:
			t.Fatalf("no notification of %s* within 10s", prefix)
		}
	}
}
