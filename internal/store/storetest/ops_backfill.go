package storetest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testBackfillCandidates pages, oldest first, through the events of the
// given sources in the window that have no delivery to the destination,
// without bodies (their sizes instead), which EventBodies then reads.
func testBackfillCandidates(t *testing.T, s store.DB) {
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Millisecond) }
	var (
		items []store.IngestItem
		want  []store.Event
	)
	for i, x := range []struct {
		source string
		dests  []string
		want   bool
	}{
		{"stripe", nil, true},
		{"github", []string{"billing"}, true},
		{"shop", nil, false},                           // another source
		{"stripe", []string{"late"}, false},            // has its delivery already
		{"stripe", []string{"billing", "late"}, false}, // likewise
		{"github", []string{"billing"}, true},
		{"stripe", nil, true},
	} {
		e := eventAt(x.source, "evt_cand_"+string(rune('a'+i)), at(i+1))
		e.Body = randomBytes(64, uint64(i))
		items = append(items, item(e, x.dests...))
		if x.want {
			want = append(want, e)
		}
	}
	outside := []store.Event{eventAt("stripe", "evt_early", at(0)), eventAt("stripe", "evt_late", at(100))}
	for _, e := range outside {
		items = append(items, item(e))
	}
	ingest(t, s, items...)

	since, until := at(1), at(100)
	var got []store.EventSummary
	after := ""
	for page := 0; ; page++ {
		cands, err := s.BackfillCandidates(context.Background(), "late", []string{"stripe", "github"}, since, until, after, 2)
		if err != nil {
			t.Fatalf("BackfillCandidates: %v", err)
		}
		if cands == nil || len(cands) > 2 {
			t.Fatalf("page %d: %d candidates (nil %t), want at most 2 and a non-nil slice", page, len(cands), cands == nil)
		}
		got = append(got, cands...)
		if len(cands) < 2 {
			break
		}
		after = cands[len(cands)-1].Event.ID
	}
	if len(got) != len(want) {
		t.Fatalf("got %d candidates, want %d", len(got), len(want))
	}
	ids := []string{"01ARZ3NDEKTSV4RRFFQ69G5FAV"} // no such event
	for i, w := range want {
		g := got[i]
		if g.Event.ID != w.ID || g.Event.Source != w.Source || g.Event.Type != w.Type || g.Event.ProviderEventID != w.ProviderEventID {
			t.Errorf("candidate %d = %+v, want event %s of %s", i, g.Event, w.ProviderEventID, w.Source)
		}
		checkTime(t, "ReceivedAt", g.Event.ReceivedAt, w.ReceivedAt)
		if g.Event.Body != nil || g.Event.Headers != nil || g.BodySize != int64(len(w.Body)) {
			t.Errorf("candidate %d: body %d bytes, headers %v, size %d; want no body or headers, size %d",
				i, len(g.Event.Body), g.Event.Headers, g.BodySize, len(w.Body))
		}
		ids = append(ids, w.ID)
	}
	bodies, err := s.EventBodies(context.Background(), ids)
	if err != nil {
		t.Fatalf("EventBodies: %v", err)
	}
	if len(bodies) != len(want) {
		t.Errorf("EventBodies returned %d bodies, want %d", len(bodies), len(want))
	}
	for _, w := range want {
		if !bytes.Equal(bodies[w.ID], w.Body) {
			t.Errorf("body of %s = %q, want %q", w.ProviderEventID, bodies[w.ID], w.Body)
		}
	}
	if bodies, err := s.EventBodies(context.Background(), nil); err != nil || len(bodies) != 0 {
		t.Errorf("EventBodies(nil) = %v, %v; want none", bodies, err)
	}

	for _, tc := range []struct {
		name    string
		sources []string
		limit   int
	}{
		{"no sources", nil, 10},
		{"limit 0", []string{"stripe"}, 0},
	} {
		cands, err := s.BackfillCandidates(context.Background(), "late", tc.sources, since, until, "", tc.limit)
		if err != nil || len(cands) != 0 {
			t.Errorf("%s: BackfillCandidates = %d events, %v; want none", tc.name, len(cands), err)
		}
	}
}

// testCreateDeliveries creates pending deliveries due now, once: an
// existing (event, destination), a repeated one and an unknown event are
// skipped, so a backfill run twice changes nothing.
func testCreateDeliveries(t *testing.T, s store.DB) {
	ops, q := s, s
	a := eventAt("stripe", "evt_a", baseTime)
	b := eventAt("stripe", "evt_b", baseTime.Add(time.Millisecond))
	b.OccurredAt = time.Time{} // ordered by received_at
	c := eventAt("stripe", "evt_c", baseTime.Add(2*time.Millisecond))
	c.OccurredAt = baseTime.Add(-time.Hour) // occurred first: the key's head
	ingest(t, s, item(a, "billing"), item(b), item(c))
	now := baseTime.Add(time.Minute)

	page := []store.BackfillDelivery{
		{EventID: a.ID, Destination: "late", OrderingKey: "k"},
		{EventID: b.ID, Destination: "late", OrderingKey: "k"},
		{EventID: c.ID, Destination: "late", OrderingKey: "k"},
		{EventID: a.ID, Destination: "billing"},                      // exists
		{EventID: c.ID, Destination: "late", OrderingKey: "k"},       // repeated
		{EventID: "01ARZ3NDEKTSV4RRFFQ69G5FAV", Destination: "late"}, // no such event
	}
	for run, want := range []int64{3, 0} {
		n, err := ops.CreateDeliveries(context.Background(), page, now)
		if err != nil {
			t.Fatalf("run %d: CreateDeliveries: %v", run, err)
		}
		if n != want {
			t.Errorf("run %d: created %d, want %d", run, n, want)
		}
	}
	if n, err := ops.CreateDeliveries(context.Background(), nil, now); err != nil || n != 0 {
		t.Errorf("CreateDeliveries(nil) = %d, %v; want 0, nil", n, err)
	}
	for _, e := range []store.Event{a, b, c} {
		d := deliveryTo(t, s, e.ID, "late")
		if d.Status != store.StatusPending || d.Attempts != 0 || d.ReplayCount != 0 || d.OrderingKey != "k" {
			t.Errorf("backfilled delivery of %s = %+v, want pending, no attempt, key k", e.ProviderEventID, d)
		}
		checkTime(t, "NextAttemptAt", d.NextAttemptAt, now)
	}
	if d := deliveryTo(t, s, a.ID, "billing"); d.NextAttemptAt.Equal(now) {
		t.Errorf("the existing delivery was rewritten: %+v", d)
	}
	// The key's head is the event that occurred first, then by received_at
	// where none is asserted: c, a (occurred 1s before it arrived), b.
	for _, want := range []store.Event{c, a, b} {
		cs := claim(t, q, "late", 10, now)
		checkClaimed(t, cs, want)
		complete(t, q, outcome(cs[0], store.StatusDone, now))
	}

	cands, err := ops.BackfillCandidates(context.Background(), "late", []string{"stripe"}, baseTime, now, "", 10)
	if err != nil || len(cands) != 0 {
		t.Errorf("BackfillCandidates after the backfill = %d events, %v; want none", len(cands), err)
	}
	if err := ops.RecordBackfill(context.Background(), "ops", "late", baseTime, now, 3, false, now); err != nil {
		t.Errorf("RecordBackfill: %v", err)
	}
	if err := ops.RecordBackfill(context.Background(), "ops", "late", baseTime, now, 0, true, now); err != nil {
		t.Errorf("RecordBackfill of a dry run: %v", err)
	}
}
