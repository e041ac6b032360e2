package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// A paused destination is claimed from by nobody and reports nothing due;
// its deliveries wait and are claimed once it is resumed. Other
// destinations are not touched.
func testPauseHoldsClaims(t *testing.T, s store.DB) {
	ctx := context.Background()
	q, ops := s, s
	now := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	e := dueEvent("evt_paused", now.Add(-time.Minute))
	ingest(t, s, item(e, "billing", "audit"))

	if err := ops.SetPaused(ctx, "billing", true, "ops", now); err != nil {
		t.Fatalf("SetPaused: %v", err)
	}
	if cs := claim(t, q, "billing", 10, now); len(cs) != 0 {
		t.Errorf("claimed %d deliveries of a paused destination", len(cs))
	}
	if _, ok, err := q.NextDue(ctx, "billing"); err != nil || ok {
		t.Errorf("NextDue of a paused destination = ok %v, %v; want none", ok, err)
	}
	if cs := claim(t, q, "audit", 10, now); len(cs) != 1 {
		t.Errorf("claimed %d deliveries of another destination, want 1", len(cs))
	}
	paused, err := ops.Paused(ctx)
	if err != nil || len(paused) != 1 || !paused["billing"].Equal(now) {
		t.Errorf("Paused = %v, %v; want billing since %v", paused, err, now)
	}
	if d := deliveryTo(t, s, e.ID, "billing"); d.Status != store.StatusPending {
		t.Errorf("a paused destination's delivery is %s, want pending", d.Status)
	}

	if err := ops.SetPaused(ctx, "billing", false, "ops", now.Add(time.Minute)); err != nil {
		t.Fatalf("SetPaused(false): %v", err)
	}
	checkClaimed(t, claim(t, q, "billing", 10, now.Add(time.Minute)), e)
	if paused, err := ops.Paused(ctx); err != nil || len(paused) != 0 {
		t.Errorf("Paused after resume = %v, %v; want none", paused, err)
	}
	entries := auditLog(t, ops, time.Time{})
	if len(entries) != 2 || entries[0].Kind != store.AuditResume || entries[1].Kind != store.AuditPause ||
		entries[1].Actor != "ops" || !strings.Contains(entries[1].Detail, `"billing"`) {
		t.Errorf("audit log = %+v; want resume then pause of billing, newest first", entries)
	}
}

// A skipped delivery is final with a note naming who skipped it; a holder
// that finishes later records nothing; a final delivery cannot be skipped.
func testSkipDelivery(t *testing.T, s store.DB) {
	ctx := context.Background()
	q, ops := s, s
	now := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	e := dueEvent("evt_stuck", now.Add(-time.Minute))
	ingest(t, s, item(e, "billing"))
	held := claim(t, q, "billing", 1, now)
	if len(held) != 1 {
		t.Fatalf("claimed %d, want 1", len(held))
	}

	d, err := ops.SkipDelivery(ctx, held[0].Delivery.ID, "ops", now.Add(time.Second))
	if err != nil {
		t.Fatalf("SkipDelivery: %v", err)
	}
	if d.Status != store.StatusSkipped || !strings.Contains(d.LastError, "ops") || d.FinishedAt.IsZero() || !d.LeaseUntil.IsZero() {
		t.Errorf("skipped delivery = %+v; want skipped, finished, no lease, a note naming ops", d)
	}
	checkLeaseLost(t, q, outcome(held[0], store.StatusDone, now.Add(2*time.Second)))
	if got := deliveryTo(t, s, e.ID, "billing"); got.Status != store.StatusSkipped {
		t.Errorf("after the late holder, status %s, want skipped", got.Status)
	}
	if _, err := ops.SkipDelivery(ctx, d.ID, "ops", now); !errors.Is(err, store.ErrFinal) {
		t.Errorf("SkipDelivery of a skipped delivery: %v, want ErrFinal", err)
	}
	if _, err := ops.SkipDelivery(ctx, d.ID+1000, "ops", now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SkipDelivery of an unknown delivery: %v, want ErrNotFound", err)
	}
	entries := auditLog(t, ops, now)
	if len(entries) != 1 || entries[0].Kind != store.AuditSkip || entries[0].Actor != "ops" {
		t.Errorf("audit log = %+v; want one skip by ops", entries)
	}
}

// The audit log lists replays, backfills and operator actions newest
// first, from a time on.
func testAuditLog(t *testing.T, s store.DB) {
	ctx := context.Background()
	t0 := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	if _, err := s.Replay(ctx, store.ReplayRequest{Filter: store.EventFilter{Source: "stripe"}, Actor: "alice", Now: t0}); err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if err := s.RecordBackfill(ctx, "bob", "late", t0, t0.Add(time.Hour), 3, false, t0.Add(time.Minute)); err != nil {
		t.Fatalf("RecordBackfill: %v", err)
	}
	if err := s.SetPaused(ctx, "late", true, "carol", t0.Add(2*time.Minute)); err != nil {
		t.Fatalf("SetPaused: %v", err)
	}
	all := auditLog(t, s, time.Time{})
	var kinds []string
	for _, e := range all {
		kinds = append(kinds, e.Kind+"/"+e.Actor)
	}
	if strings.Join(kinds, " ") != "pause/carol backfill/bob replay/alice" {
		t.Errorf("audit log = %v, want pause, backfill, replay", kinds)
	}
	if all[1].Created != 3 || !all[2].At.Equal(t0) || !strings.Contains(all[2].Detail, `"source":"stripe"`) {
		t.Errorf("audit rows = %+v", all)
	}
	if recent := auditLog(t, s, t0.Add(time.Minute)); len(recent) != 2 {
		t.Errorf("audit log since the backfill has %d rows, want 2", len(recent))
	}
	if one, err := s.AuditLog(ctx, time.Time{}, 1); err != nil || len(one) != 1 || one[0].Kind != store.AuditPause {
		t.Errorf("AuditLog limit 1 = %+v, %v", one, err)
	}
}

// Attempts carry the replay round they were made in. The attempt that
// ended a round done is kept on the delivery's row until a replay starts
// the next round, which writes it to attempts first: every round's
// success stays listed, once, and a replay that does not re-arm the
// delivery leaves it on the row.
func testAttemptRounds(t *testing.T, s store.DB) {
	q, ops := s, s
	now := time.Date(2026, time.March, 3, 9, 0, 0, 0, time.UTC)
	e := dueEvent("evt_rounds", now.Add(-time.Minute))
	ingest(t, s, item(e, "billing"))
	for round := range 2 {
		c := claim(t, q, "billing", 1, now)
		if len(c) != 1 {
			t.Fatalf("round %d: claimed %d", round, len(c))
		}
		complete(t, q, outcome(c[0], store.StatusDone, now))
		replay(t, ops, store.ReplayRequest{Filter: store.EventFilter{IDs: []string{e.ID}}, Actor: "ops", Now: now})
	}
	as := attempts(t, q, deliveryTo(t, s, e.ID, "billing").ID)
	if len(as) != 2 || as[0].Round != 0 || as[1].Round != 1 || as[0].ID == 0 || as[1].ID == 0 {
		t.Errorf("attempts = %+v; want rounds 0 then 1, each a row of its own", as)
	}

	c := claim(t, q, "billing", 1, now)
	if len(c) != 1 {
		t.Fatalf("round 2: claimed %d", len(c))
	}
	complete(t, q, outcome(c[0], store.StatusDone, now))
	replay(t, ops, store.ReplayRequest{Filter: store.EventFilter{IDs: []string{e.ID}, Status: store.StatusDead}, Actor: "ops", Now: now})
	as = attempts(t, q, deliveryTo(t, s, e.ID, "billing").ID)
	if len(as) != 3 || as[2].Round != 2 || as[2].ID != 0 || as[2].StatusCode != 200 {
		t.Errorf("attempts = %+v; want rounds 0, 1 and 2, the last kept on the delivery", as)
	}
}

func auditLog(t *testing.T, ops store.Operations, since time.Time) []store.AuditEntry {
	t.Helper()
	es, err := ops.AuditLog(context.Background(), since, 100)
	if err != nil {
		t.Fatalf("AuditLog: %v", err)
	}
	return es
}
