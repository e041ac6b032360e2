package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Retention of the prune tests.
const (
	pruneDone = 30 * 24 * time.Hour
	pruneDead = 90 * 24 * time.Hour
)

// prune calls Prune and fails the test on error.
func prune(t *testing.T, ops store.Operations, req store.PruneRequest) int64 {
	t.Helper()
	n, err := ops.Prune(context.Background(), req)
	if err != nil {
		t.Fatalf("Prune(%+v): %v", req, err)
	}
	return n
}

// pruneCase is one event of a prune test: received age before now, with
// one delivery per status given (to destinations d0, d1, ...).
type pruneCase struct {
	name     string
	age      time.Duration
	statuses []store.DeliveryStatus
	deleted  bool
}

// setupPrune stores the events of cases, each a millisecond after the
// one before, settles their deliveries, and returns them by case name.
func setupPrune(t *testing.T, s store.DB, now time.Time, cases []pruneCase) map[string]store.Event {
	t.Helper()
	events := map[string]store.Event{}
	settles := map[string]map[string]store.DeliveryStatus{}
	for i, c := range cases {
		e := eventAt("stripe", "evt_"+c.name, now.Add(-c.age).Add(time.Duration(i)*time.Millisecond))
		var dests []string
		for j, st := range c.statuses {
			dest := fmt.Sprintf("d%d", j)
			dests = append(dests, dest)
			if st == store.StatusPending {
				continue
			}
			if settles[dest] == nil {
				settles[dest] = map[string]store.DeliveryStatus{}
			}
			settles[dest][e.ID] = st
		}
		ingest(t, s, item(e, dests...))
		events[c.name] = e
	}
	for dest, want := range settles {
		settle(t, s, dest, now, want)
	}
	return events
}

// testPruneRetention deletes old finished events by their own windows,
// with their deliveries and attempts, and never one with live work.
func testPruneRetention(t *testing.T, s store.DB) {
	ops, q := s, s
	now := baseTime.Add(200 * 24 * time.Hour)
	const day = 24 * time.Hour
	var (
		done, skipped, dead = store.StatusDone, store.StatusSkipped, store.StatusDead
		pending, failed     = store.StatusPending, store.StatusFailed
		processing          = store.StatusProcessing
	)
	cases := []pruneCase{
		{"old_done", 40 * day, []store.DeliveryStatus{done}, true},
		{"old_skipped", 40 * day, []store.DeliveryStatus{skipped, done}, true},
		{"old_without_deliveries", 40 * day, nil, true},
		{"old_done_and_dead", 40 * day, []store.DeliveryStatus{done, dead}, false},
		{"old_dead", 40 * day, []store.DeliveryStatus{dead}, false},
		{"very_old_dead", 100 * day, []store.DeliveryStatus{dead}, true},
		{"very_old_dead_and_done", 100 * day, []store.DeliveryStatus{done, dead, skipped}, true},
		{"very_old_pending", 100 * day, []store.DeliveryStatus{pending}, false},
		{"very_old_failed", 100 * day, []store.DeliveryStatus{failed}, false},
		{"very_old_processing", 100 * day, []store.DeliveryStatus{processing}, false},
		{"very_old_done_and_pending", 100 * day, []store.DeliveryStatus{done, pending}, false},
		{"very_old_dead_and_failed", 100 * day, []store.DeliveryStatus{dead, failed}, false},
		{"recent_done", 1 * day, []store.DeliveryStatus{done}, false},
		{"recent_without_deliveries", 1 * day, nil, false},
		{"at_done_bound", 30 * day, []store.DeliveryStatus{done}, false},
	}
	events := setupPrune(t, s, now, cases)
	var doneDelivery store.Delivery
	for _, d := range deliveries(t, s, events["old_done"].ID) {
		doneDelivery = d
	}

	req := store.PruneRequest{DoneBefore: now.Add(-pruneDone), DeadBefore: now.Add(-pruneDead), Limit: 100}
	req.DoneBefore = events["at_done_bound"].ReceivedAt // received exactly at the bound: kept
	want := int64(0)
	for _, c := range cases {
		if c.deleted {
			want++
		}
	}
	if n := prune(t, ops, req); n != want {
		t.Errorf("Prune deleted %d events, want %d", n, want)
	}
	for _, c := range cases {
		e := events[c.name]
		_, err := s.GetEvent(context.Background(), e.ID)
		if deleted := err != nil; deleted != c.deleted {
			t.Errorf("%s: deleted %t, want %t (GetEvent: %v)", c.name, deleted, c.deleted, err)
		}
		if c.deleted && len(deliveries(t, s, e.ID)) != 0 {
			t.Errorf("%s: deliveries left behind", c.name)
		}
	}
	if as := attempts(t, q, doneDelivery.ID); len(as) != 0 {
		t.Errorf("attempts of a pruned delivery left behind: %+v", as)
	}
	if n := prune(t, ops, req); n != 0 {
		t.Errorf("a second Prune deleted %d events, want 0", n)
	}
}

// testPruneBatches deletes at most Limit events per call, oldest first.
func testPruneBatches(t *testing.T, s store.DB) {
	now := baseTime.Add(100 * 24 * time.Hour)
	var cases []pruneCase
	for i := range 5 {
		cases = append(cases, pruneCase{name: fmt.Sprintf("e%d", i), age: pruneDone + time.Hour, statuses: []store.DeliveryStatus{store.StatusDone}})
	}
	events := setupPrune(t, s, now, cases)
	req := store.PruneRequest{DoneBefore: now.Add(-pruneDone), DeadBefore: now.Add(-pruneDead), Limit: 2}
	for i, want := range []int64{2, 2, 1, 0} {
		if n := prune(t, s, req); n != want {
			t.Fatalf("call %d: Prune deleted %d, want %d", i, n, want)
		}
		if i == 0 {
			checkNoEvent(t, s, events["e0"].ID)
			checkNoEvent(t, s, events["e1"].ID)
			getEvent(t, s, events["e2"].ID)
		}
	}
	for _, req := range []store.PruneRequest{
		{DoneBefore: now, DeadBefore: now, Limit: 0},
		{Limit: 10},
	} {
		if n := prune(t, s, req); n != 0 {
			t.Errorf("Prune(%+v) = %d, want 0", req, n)
		}
	}
}

// testPruneOneRuleOnly applies only the rule whose bound is set.
func testPruneOneRuleOnly(t *testing.T, s store.DB) {
	now := baseTime.Add(200 * 24 * time.Hour)
	events := setupPrune(t, s, now, []pruneCase{
		{name: "done", age: 100 * 24 * time.Hour, statuses: []store.DeliveryStatus{store.StatusDone}},
		{name: "dead", age: 100 * 24 * time.Hour, statuses: []store.DeliveryStatus{store.StatusDead}},
	})
	if n := prune(t, s, store.PruneRequest{DeadBefore: now.Add(-pruneDead), Limit: 10}); n != 1 {
		t.Errorf("dead rule only: deleted %d, want 1", n)
	}
	checkNoEvent(t, s, events["dead"].ID)
	getEvent(t, s, events["done"].ID)
	if n := prune(t, s, store.PruneRequest{DoneBefore: now.Add(-pruneDone), Limit: 10}); n != 1 {
		t.Errorf("done rule only: deleted %d, want 1", n)
	}
	checkNoEvent(t, s, events["done"].ID)
}
