package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testWindowBoundaries selects a received_at window exactly, Since <=
// received_at < Until, in listing, replay and backfill alike, with events
// on each side of each bound, in the same millisecond as the bound (whose
// ids the window's id range cannot tell apart) and in the ones around it,
// with the smallest and largest ids of their millisecond.
func testWindowBoundaries(t *testing.T, s store.DB) {
	t0 := baseTime.Truncate(time.Millisecond)
	since := t0.Add(400 * time.Microsecond)
	until1 := t0.Add(10 * time.Millisecond)                      // on a millisecond
	until2 := t0.Add(20*time.Millisecond + 300*time.Microsecond) // within one

	ev := map[string]store.Event{}
	for _, x := range []struct {
		name     string
		received time.Time
		fill     byte
	}{
		{"c", t0.Add(-time.Microsecond), 0xff}, // the millisecond before since's
		{"a", since.Add(-time.Microsecond), 0xff},
		{"b", since, 0x00},
		{"d", until1.Add(-time.Microsecond), 0xff},
		{"e", until1, 0x00},
		{"f", until2.Add(-time.Microsecond), 0xff},
		{"g", until2, 0x00},
		{"h", t0.Add(21 * time.Millisecond), 0x00},
	} {
		e := newEvent("stripe", "evt_window_"+x.name)
		e.ID, e.ReceivedAt = idAtFill(x.received, x.fill), x.received
		ingest(t, s, item(e, "billing"))
		ev[x.name] = e
	}
	for _, tc := range []struct {
		name         string
		since, until time.Time
		want         string
	}{
		{"since, until on a millisecond", since, until1, "bd"},
		{"since, until within a millisecond", since, until2, "bdef"},
		{"since only", since, time.Time{}, "bdefgh"},
		{"until only", time.Time{}, until1, "cabd"},
		{"empty", until1, until1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []store.Event
			for _, name := range tc.want {
				want = append(want, ev[string(name)])
			}
			wantIDs := idsOf(want...)
			f := store.EventFilter{Since: tc.since, Until: tc.until}
			checkIDs(t, "listed", listIDs(t, s, f), wantIDs)

			res := replay(t, s, store.ReplayRequest{Filter: f, DryRun: true, Now: baseTime})
			if res.Matched != int64(len(want)) {
				t.Errorf("replay dry run: Matched = %d, want %d", res.Matched, len(want))
			}

			if tc.since.IsZero() || tc.until.IsZero() {
				return // a backfill always has both bounds
			}
			cands, err := s.BackfillCandidates(context.Background(), "late", []string{"stripe"}, tc.since, tc.until, "", 100)
			if err != nil {
				t.Fatalf("BackfillCandidates: %v", err)
			}
			got := make([]string, len(cands))
			for i, e := range cands {
				got[i] = e.Event.ID
			}
			slices.Reverse(wantIDs) // oldest first
			checkIDs(t, "backfill candidates", got, wantIDs)
		})
	}
}
