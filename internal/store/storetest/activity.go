package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testActivity counts the events received and the attempts made per
// minute of a window, zeros included, and nothing outside it.
func testActivity(t *testing.T, s store.DB) {
	start := baseTime.Truncate(time.Minute)
	before := eventAt("stripe", "evt_before", start.Add(-time.Second))
	first := eventAt("stripe", "evt_first", start)
	second := eventAt("stripe", "evt_second", start.Add(30*time.Second))
	third := eventAt("stripe", "evt_third", start.Add(2*time.Minute+59*time.Second))
	after := eventAt("stripe", "evt_after", start.Add(3*time.Minute))
	ingest(t, s, item(before), item(first, "billing"), item(second, "billing"), item(third), item(after))

	// Two attempts in the second minute: one delivered, one failed.
	claims := claim(t, s, "billing", 10, start.Add(time.Minute))
	if len(claims) != 2 {
		t.Fatalf("claimed %d deliveries, want 2", len(claims))
	}
	for i, c := range claims {
		done := store.Completion{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken, Status: store.StatusDone, Now: start.Add(time.Minute + 10*time.Second),
			Attempt: store.Attempt{AttemptedAt: start.Add(time.Minute + 5*time.Second), Duration: time.Millisecond, StatusCode: 204}}
		if i == 1 {
			done.Status, done.NextAttemptAt = store.StatusFailed, start.Add(time.Hour)
			done.Attempt.StatusCode, done.Attempt.Error = 0, "connection refused"
		}
		complete(t, s, done)
	}

	got, err := s.Activity(context.Background(), start, start.Add(3*time.Minute), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.ActivityBucket{
		{Start: start, Received: 2},
		{Start: start.Add(time.Minute), Delivered: 1, Failed: 1},
		{Start: start.Add(2 * time.Minute), Received: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("Activity = %+v, want %+v", got, want)
	}
	for i := range want {
		if !got[i].Start.Equal(want[i].Start) || got[i].Received != want[i].Received ||
			got[i].Delivered != want[i].Delivered || got[i].Failed != want[i].Failed {
			t.Errorf("bucket %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// testActivityCounted follows the activity counters through what writes
// them: ingest (a duplicate counts nothing), outcomes (an attempt answered
// 2xx is delivered, any other failed, by its attempt's minute), a replay
// (which counts nothing itself; its new attempts count), buckets of
// several minutes, and a prune, which deletes the counters of the minutes
// before its bounds and counts nothing down.
func testActivityCounted(t *testing.T, s store.DB) {
	m := func(i int, offset time.Duration) time.Time {
		return baseTime.Truncate(time.Minute).Add(time.Duration(i)*time.Minute + offset)
	}
	ev := []store.Event{
		eventAt("stripe", "evt_act_0", m(0, time.Second)),
		eventAt("stripe", "evt_act_1", m(0, 40*time.Second)),
		eventAt("stripe", "evt_act_2", m(1, 5*time.Second)),
	}
	ingest(t, s, item(ev[0], "billing"), item(ev[1], "billing"))
	ingest(t, s, item(ev[2], "billing"))
	checkInserted(t, ingest(t, s, item(eventAt("stripe", "evt_act_0", m(1, 10*time.Second)), "billing")), false)
	checkActivity(t, s, "ingest", m(0, 0), time.Minute, []store.ActivityBucket{{Received: 2}, {Received: 1}, {}, {}})

	cs := claim(t, s, "billing", 10, m(2, 0))
	checkClaimed(t, cs, ev...)
	attempt := func(c store.Claim, status store.DeliveryStatus, at time.Time, code int, text string) store.Completion {
		return store.Completion{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken, Status: status, Now: at,
			NextAttemptAt: at.Add(time.Minute), Attempt: store.Attempt{AttemptedAt: at, Duration: time.Millisecond, StatusCode: code, Error: text}}
	}
	complete(t, s, attempt(cs[0], store.StatusDone, m(2, time.Second), 204, ""))
	complete(t, s, attempt(cs[1], store.StatusFailed, m(2, 2*time.Second), 503, "status 503"))
	complete(t, s, attempt(cs[2], store.StatusDead, m(2, 3*time.Second), 0, "timeout after 10s"))
	checkActivity(t, s, "outcomes", m(0, 0), time.Minute, []store.ActivityBucket{{Received: 2}, {Received: 1}, {Delivered: 1, Failed: 2}, {}})

	res := replay(t, s, store.ReplayRequest{Actor: "ops", Now: m(3, 0), Filter: store.EventFilter{Status: store.StatusDead}})
	if res.Rearmed != 1 {
		t.Fatalf("replay of the dead delivery: %+v, want 1 re-armed", res)
	}
	checkActivity(t, s, "replay", m(0, 0), time.Minute, []store.ActivityBucket{{Received: 2}, {Received: 1}, {Delivered: 1, Failed: 2}, {}})
	again := claim(t, s, "billing", 10, m(3, 30*time.Second))
	checkClaimed(t, again, ev[2], ev[1]) // ev[2] re-armed due at m3, ev[1] due a minute after its failure
	// Both in one statement: its trigger counts the rows set done, each
	// once.
	completeAll(t, s, attempt(again[0], store.StatusDone, m(3, 31*time.Second), 200, ""),
		attempt(again[1], store.StatusDone, m(3, 31*time.Second), 200, ""))
	want := []store.ActivityBucket{{Received: 2}, {Received: 1}, {Delivered: 1, Failed: 2}, {Delivered: 2}}
	checkActivity(t, s, "attempts after the replay", m(0, 0), time.Minute, want)
	checkActivity(t, s, "two minutes a bucket", m(0, 0), 2*time.Minute, []store.ActivityBucket{{Received: 3}, {Delivered: 3, Failed: 2}})

	// The minute before the bounds' goes; the events it counted go too,
	// and those of later minutes, which stay counted.
	if n := prune(t, s, store.PruneRequest{DoneBefore: m(1, 30*time.Second), DeadBefore: m(2, 0), Limit: 10}); n != 3 {
		t.Fatalf("pruned %d events, want 3", n)
	}
	want[0] = store.ActivityBucket{}
	checkActivity(t, s, "prune", m(0, 0), time.Minute, want)
}

// checkActivity fails unless Activity from since by step counts want,
// bucket by bucket, each starting a step after the one before.
func checkActivity(t *testing.T, s store.DB, what string, since time.Time, step time.Duration, want []store.ActivityBucket) {
	t.Helper()
	until := since.Add(time.Duration(len(want)) * step)
	got, err := s.Activity(context.Background(), since, until, step)
	if err != nil {
		t.Fatalf("%s: Activity: %v", what, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: Activity = %+v, want %d buckets", what, got, len(want))
	}
	for i, w := range want {
		w.Start = since.Add(time.Duration(i) * step)
		if g := got[i]; !g.Start.Equal(w.Start) || g.Received != w.Received || g.Delivered != w.Delivered || g.Failed != w.Failed {
			t.Errorf("%s: bucket %d = %+v, want %+v", what, i, g, w)
		}
	}
}
