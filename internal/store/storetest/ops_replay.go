package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testReplayRearms re-arms every selected delivery but the processing
// one: pending, due now, no attempt, lease, finish, error or status code,
// replay_count + 1; a dry run first counts the same and changes nothing.
func testReplayRearms(t *testing.T, s store.DB) {
	ops, q := s, s
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Millisecond) }
	done, dead, failed, busy := eventAt("stripe", "evt_done", at(0)), eventAt("stripe", "evt_dead", at(1)),
		eventAt("stripe", "evt_failed", at(2)), eventAt("stripe", "evt_busy", at(3))
	other := eventAt("github", "evt_other", at(4))
	for _, e := range []store.Event{done, dead, failed, busy, other} {
		ingest(t, s, item(e, "billing")) // one by one: delivery ids follow
	}
	settled := at(100)
	held := settle(t, s, "billing", settled, map[string]store.DeliveryStatus{
		done.ID: store.StatusDone, dead.ID: store.StatusDead, failed.ID: store.StatusFailed,
		busy.ID: store.StatusProcessing, other.ID: store.StatusDone,
	})[busy.ID]
	before := map[string]store.Delivery{}
	for _, e := range []store.Event{done, dead, failed, busy, other} {
		before[e.ID] = theDelivery(t, s, e.ID)
	}

	now := at(1000)
	f := store.EventFilter{Source: "stripe"}
	dry := replay(t, ops, store.ReplayRequest{Filter: f, DryRun: true, Actor: "ops", Now: now})
	if want := (store.ReplayResult{Matched: 4, Rearmed: 0, InFlight: 1}); dry != want {
		t.Fatalf("dry run = %+v, want %+v", dry, want)
	}
	for id, d := range before {
		if got := theDelivery(t, s, id); fmt.Sprint(got) != fmt.Sprint(d) {
			t.Errorf("dry run changed delivery %d: %+v, was %+v", d.ID, got, d)
		}
	}

	res := replay(t, ops, store.ReplayRequest{Filter: f, Actor: "ops", Now: now})
	if want := (store.ReplayResult{Matched: dry.Matched, Rearmed: 3, InFlight: 1}); res != want {
		t.Fatalf("replay = %+v, want %+v", res, want)
	}
	for _, e := range []store.Event{done, dead, failed} {
		d := theDelivery(t, s, e.ID)
		if d.Status != store.StatusPending || d.Attempts != 0 || d.ReplayCount != 1 ||
			!d.LeaseUntil.IsZero() || !d.FinishedAt.IsZero() || d.LastError != "" || d.LastStatusCode != 0 {
			t.Errorf("re-armed delivery of %s = %+v, want pending, no attempt, replay_count 1, no lease, finish, error or code", e.ProviderEventID, d)
		}
		checkTime(t, "NextAttemptAt", d.NextAttemptAt, now)
		checkTime(t, "UpdatedAt", d.UpdatedAt, now)
		if n := len(attempts(t, q, d.ID)); n != 1 {
			t.Errorf("delivery of %s has %d attempts after replay, want its 1 kept", e.ProviderEventID, n)
		}
	}
	for _, e := range []store.Event{busy, other} {
		if got, was := theDelivery(t, s, e.ID), before[e.ID]; fmt.Sprint(got) != fmt.Sprint(was) {
			t.Errorf("replay changed the delivery of %s: %+v, was %+v", e.ProviderEventID, got, was)
		}
	}
	// The held lease still holds: its outcome is recorded.
	complete(t, q, outcome(held, store.StatusDone, now))

	// Re-armed rows are due now, and a second replay counts again.
	checkClaimed(t, claim(t, q, "billing", 10, now), done, dead, failed)
	res = replay(t, ops, store.ReplayRequest{Filter: store.EventFilter{IDs: []string{done.ID}}, Actor: "ops", Now: now})
	if want := (store.ReplayResult{Matched: 1, Rearmed: 0, InFlight: 1}); res != want {
		t.Errorf("replay of a claimed delivery = %+v, want %+v", res, want)
	}
	for _, c := range claim(t, q, "billing", 10, now.Add(2*testLease)) { // the leases ran out
		complete(t, q, outcome(c, store.StatusDone, now.Add(2*testLease)))
	}
	res = replay(t, ops, store.ReplayRequest{Filter: store.EventFilter{IDs: []string{done.ID}}, Now: now.Add(time.Hour)})
	if want := (store.ReplayResult{Matched: 1, Rearmed: 1}); res != want {
		t.Errorf("second replay = %+v, want %+v", res, want)
	}
	if d := theDelivery(t, s, done.ID); d.ReplayCount != 2 {
		t.Errorf("replay_count after two replays = %d, want 2", d.ReplayCount)
	}
}

// testReplayDeliveryFilter re-arms only the deliveries of the filter's
// destination and status, not the event's others. Each case has events of
// a source of its own: a done to billing and dead to audit, b the other
// way round.
func testReplayDeliveryFilter(t *testing.T, s store.DB) {
	for i, tc := range []struct {
		name   string
		filter store.EventFilter
		want   []string // event/destination re-armed
	}{
		{"status", store.EventFilter{Status: store.StatusDead}, []string{"a/audit", "b/billing"}},
		{"destination", store.EventFilter{Destination: "billing"}, []string{"a/billing", "b/billing"}},
		{"both", store.EventFilter{Destination: "audit", Status: store.StatusDone}, []string{"b/audit"}},
		{"ids and destination", store.EventFilter{Destination: "audit"}, []string{"a/audit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			source := fmt.Sprintf("src%d", i)
			start := baseTime.Add(time.Duration(i) * time.Second)
			a := eventAt(source, "evt_a", start)
			b := eventAt(source, "evt_b", start.Add(time.Millisecond))
			ingest(t, s, item(a, "billing", "audit"), item(b, "billing", "audit"))
			now := start.Add(10 * time.Millisecond)
			settle(t, s, "billing", now, map[string]store.DeliveryStatus{a.ID: store.StatusDone, b.ID: store.StatusDead})
			settle(t, s, "audit", now, map[string]store.DeliveryStatus{a.ID: store.StatusDead, b.ID: store.StatusDone})

			f := tc.filter
			f.Source = source
			if tc.name == "ids and destination" {
				f.IDs = []string{a.ID}
			}
			res := replay(t, s, store.ReplayRequest{Filter: f, Now: now})
			if res.Matched != int64(len(tc.want)) || res.Rearmed != int64(len(tc.want)) || res.InFlight != 0 {
				t.Errorf("replay = %+v, want %d matched and re-armed", res, len(tc.want))
			}
			var got []string
			for name, e := range map[string]store.Event{"a": a, "b": b} {
				for _, d := range deliveries(t, s, e.ID) {
					if d.ReplayCount > 0 {
						got = append(got, name+"/"+d.Destination)
					}
				}
			}
			slices.Sort(got)
			checkIDs(t, "re-armed", got, tc.want)
		})
	}
}

// testReplayNothing matches nothing and changes nothing.
func testReplayNothing(t *testing.T, s store.DB) {
	e := eventAt("stripe", "evt_x", baseTime)
	ingest(t, s, item(e, "billing"))
	for _, f := range []store.EventFilter{
		{Source: "github"},
		{IDs: []string{"01ARZ3NDEKTSV4RRFFQ69G5FAV"}},
		{Destination: "audit"},
		{Since: baseTime.Add(time.Second)},
	} {
		for _, dry := range []bool{true, false} {
			if res := replay(t, s, store.ReplayRequest{Filter: f, DryRun: dry, Now: baseTime}); res != (store.ReplayResult{}) {
				t.Errorf("Replay(%+v, dry run %t) = %+v, want nothing", f, dry, res)
			}
		}
	}
	if d := theDelivery(t, s, e.ID); d.ReplayCount != 0 {
		t.Errorf("replay_count = %d, want 0", d.ReplayCount)
	}
}
