package storetest

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// purge calls PurgeEvents and fails the test on error.
func purge(t *testing.T, s store.DB, actor, reason string, now time.Time, ids ...string) store.PurgeResult {
	t.Helper()
	res, err := s.PurgeEvents(context.Background(), store.PurgeRequest{IDs: ids, Actor: actor, Reason: reason, Now: now})
	if err != nil {
		t.Fatalf("PurgeEvents(%v): %v", ids, err)
	}
	if res.Purged == nil {
		t.Fatalf("PurgeEvents(%v) purged nil, want a non-nil slice", ids)
	}
	return res
}

// tombstones calls Tombstones and fails the test on error.
func tombstones(t *testing.T, s store.DB, ids ...string) map[string]store.Tombstone {
	t.Helper()
	ts, err := s.Tombstones(context.Background(), ids)
	if err != nil {
		t.Fatalf("Tombstones(%v): %v", ids, err)
	}
	return ts
}

// A purge empties the event's body and headers, keeps its ids, source, type
// and times with a tombstone, ends its live deliveries as purged (a late
// holder records nothing), leaves its final ones as they were, clears its
// ordering keys and response snippets, and touches no other event.
func testPurgeErasesPayload(t *testing.T, s store.DB) {
	ctx := context.Background()
	now := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	e := dueEvent("evt_subject", now.Add(-time.Minute))
	e.Headers = map[string][]string{"User-Agent": {"Stripe/1.0"}, "X-Customer": {"cus_123"}}
	e.RawQuery = "To=%2B15551234567&customer=cus_123"
	other := dueEvent("evt_bystander", now) // due after the subject
	other.RawQuery = "bodySHA256=5d1c"
	it := item(e, "audit", "billing", "crm")
	it.Deliveries[1].OrderingKey = "cus_123"
	ingest(t, s, it, item(other, "billing"))

	// audit: done, with a snippet; billing: processing; crm: pending.
	done := claim(t, s, "audit", 1, now)
	c := outcome(done[0], store.StatusDone, now)
	c.Attempt.RequestHeaders = map[string][]string{"X-Customer": {"cus_123"}}
	c.Attempt.ResponseHeaders = map[string][]string{"X-Echo": {"cus_123"}}
	complete(t, s, c)
	held := claim(t, s, "billing", 1, now)
	if len(held) != 1 || held[0].Delivery.EventID != e.ID {
		t.Fatalf("claimed %+v, want the subject's billing delivery", held)
	}

	res := purge(t, s, "ops", "erasure request 42", now.Add(time.Second), e.ID)
	if len(res.Purged) != 1 || res.Purged[0] != e.ID || res.Ended != 2 {
		t.Errorf("PurgeEvents = %+v; want %s purged, 2 deliveries ended", res, e.ID)
	}

	got := getEvent(t, s, e.ID)
	if len(got.Body) != 0 || len(got.Headers) != 0 || got.RawQuery != "" {
		t.Errorf("purged event has body %q, headers %v and query %q, want none", got.Body, got.Headers, got.RawQuery)
	}
	if got.Source != e.Source || got.ProviderEventID != e.ProviderEventID || got.Type != e.Type {
		t.Errorf("purged event = %+v; its ids, source and type are kept", got)
	}
	checkTime(t, "ReceivedAt", got.ReceivedAt, e.ReceivedAt)
	if bodies, err := s.EventBodies(ctx, []string{e.ID}); err != nil || len(bodies[e.ID]) != 0 {
		t.Errorf("EventBodies = %q, %v; want an empty body", bodies[e.ID], err)
	}
	ts := tombstones(t, s, e.ID, other.ID, "evt_unknown")
	tomb, ok := ts[e.ID]
	if len(ts) != 1 || !ok || tomb.Actor != "ops" || tomb.Reason != "erasure request 42" {
		t.Errorf("Tombstones = %+v; want only %s's, by ops, with its reason", ts, e.ID)
	}
	checkTime(t, "PurgedAt", tomb.PurgedAt, now.Add(time.Second))

	for _, d := range deliveries(t, s, e.ID) {
		want := store.StatusPurged
		if d.Destination == "audit" {
			want = store.StatusDone
		}
		if d.Status != want || d.OrderingKey != "" || !d.LeaseUntil.IsZero() {
			t.Errorf("%s delivery = %+v; want %s, no ordering key, no lease", d.Destination, d, want)
		}
		if want == store.StatusPurged && (d.FinishedAt.IsZero() || !strings.Contains(d.LastError, "ops")) {
			t.Errorf("%s delivery = %+v; want finished with a note naming ops", d.Destination, d)
		}
		for _, a := range attempts(t, s, d.ID) {
			if a.ResponseSnippet != "" || a.RequestHeaders != nil || a.ResponseHeaders != nil {
				t.Errorf("%s attempt keeps snippet %q and headers %v, %v after the purge", d.Destination, a.ResponseSnippet, a.RequestHeaders, a.ResponseHeaders)
			}
		}
	}
	checkLeaseLost(t, s, outcome(held[0], store.StatusDone, now.Add(2*time.Second)))
	if cs := claim(t, s, "crm", 10, now.Add(time.Hour)); len(cs) != 0 {
		t.Errorf("claimed %d deliveries of a purged event", len(cs))
	}
	if _, ok, err := s.NextDue(ctx, "crm"); err != nil || ok {
		t.Errorf("NextDue(crm) = %v, %v; want nothing due", ok, err)
	}
	counts := stats(t, s, now).Destinations["crm"].Counts
	if counts[store.StatusPurged] != 1 || counts[store.StatusPending] != 0 {
		t.Errorf("crm counts = %v; want 1 purged, 0 pending", counts)
	}

	bystander := getEvent(t, s, other.ID)
	checkEvent(t, bystander, other)
	checkRawQuery(t, "GetEvent", bystander, other.RawQuery)
	if d := deliveryTo(t, s, other.ID, "billing"); d.Status != store.StatusPending {
		t.Errorf("a bystander's delivery is %s, want pending", d.Status)
	}
}

// A second purge of an event changes nothing and keeps the first
// tombstone; unknown ids are passed by; more than MaxPurgeBatch ids is an
// error.
func testPurgeOnce(t *testing.T, s store.DB) {
	now := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	e := dueEvent("evt_once", now.Add(-time.Minute))
	ingest(t, s, item(e, "billing"))
	purge(t, s, "ops", "first", now, e.ID)
	res := purge(t, s, "dpo", "second", now.Add(time.Hour), e.ID, "evt_nothing")
	if len(res.Purged) != 0 || res.Ended != 0 {
		t.Errorf("second PurgeEvents = %+v; want nothing", res)
	}
	if tomb := tombstones(t, s, e.ID)[e.ID]; tomb.Actor != "ops" || tomb.Reason != "first" {
		t.Errorf("tombstone = %+v; want the first purge's", tomb)
	}
	if res := purge(t, s, "ops", "none", now); len(res.Purged) != 0 {
		t.Errorf("PurgeEvents of no ids = %+v", res)
	}
	ids := make([]string, store.MaxPurgeBatch+1)
	for i := range ids {
		ids[i] = newID()
	}
	if _, err := s.PurgeEvents(context.Background(), store.PurgeRequest{IDs: ids, Actor: "ops", Reason: "x", Now: now}); err == nil {
		t.Errorf("PurgeEvents of %d ids succeeded, want an error", len(ids))
	}
}

// Replay re-arms no delivery of a purged event, by id or by filter, whatever
// its status; backfill neither lists one nor gives it a delivery.
func testPurgedNeverRearmed(t *testing.T, s store.DB) {
	now := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	e := eventAt("stripe", "evt_gone", now.Add(-time.Hour))
	kept := eventAt("stripe", "evt_kept", now.Add(-time.Hour).Add(time.Millisecond))
	ingest(t, s, item(e, "billing"), item(kept, "billing"))
	purge(t, s, "ops", "erasure", now, e.ID)

	res := replay(t, s, store.ReplayRequest{Filter: store.EventFilter{IDs: []string{e.ID}}, Actor: "ops", Now: now})
	if res.Matched != 0 || res.Rearmed != 0 {
		t.Errorf("replay of a purged event = %+v; want nothing matched", res)
	}
	res = replay(t, s, store.ReplayRequest{Filter: store.EventFilter{Source: "stripe"}, Actor: "ops", Now: now})
	if res.Matched != 1 || res.Rearmed != 1 {
		t.Errorf("replay of the source = %+v; want only the kept event's delivery", res)
	}
	res = replay(t, s, store.ReplayRequest{Filter: store.EventFilter{Status: store.StatusPurged}, Actor: "ops", Now: now})
	if res.Matched != 0 {
		t.Errorf("replay of purged deliveries = %+v; want nothing matched", res)
	}
	if d := deliveryTo(t, s, e.ID, "billing"); d.Status != store.StatusPurged {
		t.Errorf("after replays the purged event's delivery is %s", d.Status)
	}

	cands, err := s.BackfillCandidates(context.Background(), "crm", []string{"stripe"}, now.Add(-2*time.Hour), now, "", 10)
	if err != nil || len(cands) != 1 || cands[0].Event.ID != kept.ID {
		t.Errorf("BackfillCandidates = %+v, %v; want the kept event only", cands, err)
	}
	n, err := s.CreateDeliveries(context.Background(), []store.BackfillDelivery{{EventID: e.ID, Destination: "crm"}}, now)
	if err != nil || n != 0 {
		t.Errorf("CreateDeliveries for a purged event = %d, %v; want none", n, err)
	}
}

// A purge's audit row records who, the selector and reason (a value's keyed hash,
// never the value), and the counts; a dry run's too.
func testPurgeAudit(t *testing.T, s store.DB) {
	ctx := context.Background()
	now := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	sel := store.PurgeSelector{Source: "stripe", Path: "data.object.customer", ValueHMAC: "ab12", Since: now.Add(-time.Hour)}
	for _, dry := range []bool{true, false} {
		a := store.PurgeAudit{Actor: "ops", Selector: sel, Reason: "erasure request 42", Matched: 3, DryRun: dry, Now: now}
		if !dry {
			a.Purged = 3
		}
		if err := s.RecordPurge(ctx, a); err != nil {
			t.Fatalf("RecordPurge: %v", err)
		}
	}
	es := auditLog(t, s, time.Time{})
	if len(es) != 2 {
		t.Fatalf("audit log has %d rows, want 2", len(es))
	}
	real, dry := es[0], es[1]
	if real.Kind != store.AuditPurge || real.Actor != "ops" || real.Matched != 3 || real.Purged != 3 || real.DryRun {
		t.Errorf("purge audit row = %+v", real)
	}
	if dry.Kind != store.AuditPurge || dry.Purged != 0 || !dry.DryRun {
		t.Errorf("dry run audit row = %+v", dry)
	}
	for _, want := range []string{`"path":"data.object.customer"`, `"value_hmac":"ab12"`, `"reason":"erasure request 42"`, `"source":"stripe"`} {
		if !strings.Contains(real.Detail, want) {
			t.Errorf("audit detail %s lacks %s", real.Detail, want)
		}
	}
}

// The audit key is made once: every call, concurrent ones included, gets
// the same 32 bytes.
func testAuditKey(t *testing.T, s store.DB) {
	ctx := context.Background()
	keys := make([][]byte, 8)
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() { keys[i], errs[i] = s.AuditKey(ctx) })
	}
	wg.Wait()
	for i, k := range keys {
		if errs[i] != nil {
			t.Fatalf("AuditKey: %v", errs[i])
		}
		if len(k) != store.AuditKeySize || !bytes.Equal(k, keys[0]) {
			t.Fatalf("AuditKey gave %x and %x: want one key of %d bytes", keys[0], k, store.AuditKeySize)
		}
	}
	if bytes.Equal(keys[0], make([]byte, store.AuditKeySize)) {
		t.Fatal("AuditKey is all zeros")
	}
	again, err := s.AuditKey(ctx)
	if err != nil || !bytes.Equal(again, keys[0]) {
		t.Fatalf("AuditKey later = %x, %v; want %x", again, err, keys[0])
	}
}
