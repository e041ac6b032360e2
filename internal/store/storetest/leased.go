package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// leasedItem wraps e with one delivery to destination leased at ingest
// until until, and returns the lease Ingest fills in.
func leasedItem(e store.Event, destination, token string, until time.Time) (store.IngestItem, *store.Lease) {
	l := &store.Lease{Token: token, Until: until}
	return store.IngestItem{Event: e, Deliveries: []store.NewDelivery{{Destination: destination, Lease: l}}}, l
}

// leasedClaim is the claim a node that ingested e under l holds, as it
// builds it in memory.
func leasedClaim(e store.Event, destination string, l *store.Lease) store.Claim {
	return store.Claim{
		Delivery: store.Delivery{
			ID: l.DeliveryID, EventID: e.ID, Destination: destination, Status: store.StatusProcessing,
			Attempts: 1, NextAttemptAt: e.ReceivedAt, LeaseUntil: l.Until,
		},
		LeaseToken: l.Token,
		Event:      e,
		Deferred:   l.Deferred,
	}
}

// testIngestLeased checks that a delivery ingested with a lease gets an
// id and is shown as a claim leaves it — processing, its attempt
// counted, leased until the lease's end — whether its row is written or
// deferred, beside a pending one of the same event; that NextDue names
// the lease's end either way; and that a duplicate's lease gets no id.
func testIngestLeased(t *testing.T, s store.DB) {
	e := dueEvent("evt_leased", baseTime)
	until := baseTime.Add(testLease)
	it, l := leasedItem(e, "billing", "tok-billing", until)
	it.Deliveries = append(it.Deliveries, store.NewDelivery{Destination: "crm"})
	checkInserted(t, ingest(t, s, it), true)

	ds := deliveries(t, s, e.ID)
	if l.DeliveryID == 0 {
		t.Fatalf("lease's delivery id = 0, want the delivery's")
	}
	if len(ds) != 2 {
		t.Fatalf("event has %d deliveries (deferred %v), want 2", len(ds), l.Deferred)
	}
	billing := ds[0]
	if l.DeliveryID != billing.ID || billing.EventID != e.ID || billing.Destination != "billing" {
		t.Errorf("leased delivery = %+v, want the lease's id %d, of %s to billing", billing, l.DeliveryID, e.ID)
	}
	if billing.Status != store.StatusProcessing || billing.Attempts != 1 {
		t.Errorf("leased delivery = %+v, want processing, attempt 1", billing)
	}
	checkTime(t, "LeaseUntil", billing.LeaseUntil, until)
	checkTime(t, "NextAttemptAt", billing.NextAttemptAt, e.ReceivedAt)
	if got, err := s.GetDelivery(context.Background(), l.DeliveryID); err != nil || got.ID != billing.ID || got.Status != store.StatusProcessing {
		t.Errorf("GetDelivery(%d) = %+v, %v; want the leased delivery, processing", l.DeliveryID, got, err)
	}
	if crm := ds[1]; crm.Status != store.StatusPending || crm.Attempts != 0 || !crm.LeaseUntil.IsZero() {
		t.Errorf("unleased delivery of the same event = %+v, want pending, no attempt, no lease", crm)
	}
	at, ok, err := s.NextDue(context.Background(), "billing")
	if err != nil || !ok {
		t.Fatalf("NextDue = %v, %v, %v; want the lease's end", at, ok, err)
	}
	checkTime(t, "NextDue", at, until)

	again, l2 := leasedItem(newEvent(e.Source, e.ProviderEventID), "billing", "tok-again", until)
	checkInserted(t, ingest(t, s, again), false)
	if l2.DeliveryID != 0 {
		t.Errorf("a duplicate's lease got delivery id %d, want 0", l2.DeliveryID)
	}
}

// testIngestLeasedHeld checks that a delivery leased at ingest is not
// claimed while its lease lives, that its holder completes it with its
// token while a wrong token is refused (once its row is written, when
// deferred), and that one whose holder died is claimed once the lease has
// run out — one more attempt, a new token — after which the first
// holder's outcome is refused, and the completed one is left done.
func testIngestLeasedHeld(t *testing.T, s store.DB) {
	until := baseTime.Add(testLease)
	done, lDone := leasedItem(dueEvent("evt_done", baseTime), "billing", "tok-done", until)
	lost, lLost := leasedItem(dueEvent("evt_lost", baseTime), "billing", "tok-lost", until)
	ingest(t, s, done, lost)

	checkClaimed(t, claim(t, s, "billing", 10, until.Add(-time.Microsecond)))

	now := baseTime.Add(time.Second)
	held := leasedClaim(done.Event, "billing", lDone)
	if !lDone.Deferred {
		// A deferred delivery's token is checked once its row is written
		// (below): until then no claim can hold it (store.Lease).
		wrong := held
		wrong.LeaseToken = "tok-not-mine"
		checkLeaseLost(t, s, outcome(wrong, store.StatusDone, now))
	}
	complete(t, s, outcome(held, store.StatusDone, now))
	d := theDelivery(t, s, done.Event.ID)
	if d.ID != lDone.DeliveryID || d.Status != store.StatusDone || d.Attempts != 1 {
		t.Errorf("completed delivery = %+v, want %d done after 1 attempt", d, lDone.DeliveryID)
	}
	checkTime(t, "NextAttemptAt", d.NextAttemptAt, done.Event.ReceivedAt)
	if as := attempts(t, s, lDone.DeliveryID); len(as) != 1 || as[0].StatusCode != 200 {
		t.Errorf("attempts = %+v, want the one recorded", as)
	}

	taken := claim(t, s, "billing", 10, until)
	checkClaimed(t, taken, lost.Event)
	if c := taken[0]; c.Delivery.ID != lLost.DeliveryID || c.Delivery.Attempts != 2 || c.LeaseToken == lLost.Token {
		t.Errorf("taken over = %+v (token %q), want delivery %d, attempt 2, a new token", c.Delivery, c.LeaseToken, lLost.DeliveryID)
	}
	checkLeaseLost(t, s, outcome(leasedClaim(lost.Event, "billing", lLost), store.StatusDone, until))
	complete(t, s, outcome(taken[0], store.StatusDone, until))
	if d := theDelivery(t, s, done.Event.ID); d.Status != store.StatusDone || d.Attempts != 1 {
		t.Errorf("once the lease ran out the completed delivery is %+v, want done after 1 attempt still", d)
	}
}

// testIngestLeasedOutcomeAfterLeaseEnd checks that a leased delivery's
// holder still records its outcome once the lease has run out, while no
// claim has taken the delivery over: a claim of another destination,
// which finds the ended lease (and, deferred, writes the row) leaves it
// to its holder; the outcome is then recorded once, and a failure keeps
// its attempt and is due again as the holder said.
func testIngestLeasedOutcomeAfterLeaseEnd(t *testing.T, s store.DB) {
	until := baseTime.Add(testLease)
	ok, lOK := leasedItem(dueEvent("evt_late_ok", baseTime), "billing", "tok-ok", until)
	bad, lBad := leasedItem(dueEvent("evt_late_bad", baseTime), "billing", "tok-bad", until)
	ingest(t, s, ok, bad)
	checkClaimed(t, claim(t, s, "crm", 10, until.Add(time.Second)))

	now := until.Add(2 * time.Second)
	failed := outcome(leasedClaim(bad.Event, "billing", lBad), store.StatusFailed, now)
	failed.NextAttemptAt = now.Add(time.Minute)
	recorded, err := s.CompleteDeliveries(context.Background(), []store.Completion{
		outcome(leasedClaim(ok.Event, "billing", lOK), store.StatusDone, now), failed,
		outcome(leasedClaim(ok.Event, "billing", lOK), store.StatusDone, now),
	})
	if err != nil || len(recorded) != 3 || !recorded[0] || !recorded[1] || recorded[2] {
		t.Fatalf("CompleteDeliveries = %v, %v; want the first two recorded, the repeat not", recorded, err)
	}
	if d := theDelivery(t, s, ok.Event.ID); d.ID != lOK.DeliveryID || d.Status != store.StatusDone || d.Attempts != 1 {
		t.Errorf("done delivery = %+v, want %d done after 1 attempt", d, lOK.DeliveryID)
	}
	d := theDelivery(t, s, bad.Event.ID)
	if d.ID != lBad.DeliveryID || d.Status != store.StatusFailed || d.Attempts != 1 || d.LastStatusCode != 503 {
		t.Errorf("failed delivery = %+v, want %d failed after 1 attempt, last answered 503", d, lBad.DeliveryID)
	}
	checkTime(t, "NextAttemptAt", d.NextAttemptAt, now.Add(time.Minute))
	if as := attempts(t, s, lBad.DeliveryID); len(as) != 1 || as[0].StatusCode != 503 {
		t.Errorf("failed delivery's attempts = %+v, want the one that answered 503", as)
	}
	checkClaimed(t, claim(t, s, "billing", 10, now.Add(time.Minute)), bad.Event)
}

// testIngestLeasedDoneWritten checks the outcomes of deliveries leased
// at ingest whose leases are still running by the store's clock — the
// common case, which a driver may write by a path of its own: a done
// one's row and attempt are what a delivery whose lease had run out gets
// from the same outcome; one whose row a claim's sweep wrote meanwhile
// (its claimer's clock ahead) is recorded all the same, beside one
// that has no row yet; and one whose event was purged is not recorded.
func testIngestLeasedDoneWritten(t *testing.T, s store.DB) {
	ctx := context.Background()
	received := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	running := received.Add(time.Hour)
	fast, lFast := leasedItem(dueEvent("evt_done_running", received), "billing", "tok-fast", running)
	late, lLate := leasedItem(dueEvent("evt_done_ended", received), "billing", "tok-late", received.Add(time.Second))
	ingest(t, s, fast) // apart: a batch's lease runs until its earliest
	ingest(t, s, late)
	now := received.Add(30 * time.Second)
	recorded, err := s.CompleteDeliveries(ctx, []store.Completion{
		outcome(leasedClaim(fast.Event, "billing", lFast), store.StatusDone, now)})
	if err != nil || len(recorded) != 1 || !recorded[0] {
		t.Fatalf("CompleteDeliveries(running lease) = %v, %v; want recorded", recorded, err)
	}
	complete(t, s, outcome(leasedClaim(late.Event, "billing", lLate), store.StatusDone, now))
	got, want := theDelivery(t, s, fast.Event.ID), theDelivery(t, s, late.Event.ID)
	if got.ID != lFast.DeliveryID || got.Status != store.StatusDone || got.Attempts != 1 || got.LastStatusCode != 200 {
		t.Errorf("done delivery = %+v, want %d done after 1 attempt, last answered 200", got, lFast.DeliveryID)
	}
	// Rows written at ingest are created at the insert's time, a little
	// apart for two ingests.
	got.ID, got.EventID, got.CreatedAt, want.ID, want.EventID, want.CreatedAt = 0, "", time.Time{}, 0, "", time.Time{}
	if got != want {
		t.Errorf("delivery done under a running lease = %+v,\nwant what one whose lease ran out gets: %+v", got, want)
	}
	if as, ref := attempts(t, s, lFast.DeliveryID), attempts(t, s, lLate.DeliveryID); len(as) != 1 || len(ref) != 1 ||
		as[0].StatusCode != ref[0].StatusCode || !as[0].AttemptedAt.Equal(ref[0].AttemptedAt) || as[0].Duration != ref[0].Duration {
		t.Errorf("attempts = %+v, want one as %+v", as, ref)
	}

	// A sweep by a claimer whose clock is ahead writes the row of one
	// batch while this store still counts its lease as running.
	swept, lSwept := leasedItem(dueEvent("evt_done_swept", received), "billing", "tok-swept", received.Add(10*time.Minute))
	ingest(t, s, swept)
	unswept, lUnswept := leasedItem(dueEvent("evt_done_unswept", received), "billing", "tok-unswept", running)
	ingest(t, s, unswept)
	checkClaimed(t, claim(t, s, "crm", 10, received.Add(11*time.Minute)))
	recorded, err = s.CompleteDeliveries(ctx, []store.Completion{
		outcome(leasedClaim(swept.Event, "billing", lSwept), store.StatusDone, now),
		outcome(leasedClaim(unswept.Event, "billing", lUnswept), store.StatusDone, now),
	})
	if err != nil || len(recorded) != 2 || !recorded[0] || !recorded[1] {
		t.Fatalf("CompleteDeliveries(one row swept, one not) = %v, %v; want both recorded", recorded, err)
	}
	for _, e := range []store.Event{swept.Event, unswept.Event} {
		if d := theDelivery(t, s, e.ID); d.Status != store.StatusDone || d.Attempts != 1 {
			t.Errorf("delivery of %s = %+v, want done after 1 attempt", e.ID, d)
		}
	}

	purged, lPurged := leasedItem(dueEvent("evt_done_purged", received), "billing", "tok-purged", running)
	ingest(t, s, purged)
	purge(t, s, "ops", "erasure", now, purged.Event.ID)
	recorded, err = s.CompleteDeliveries(ctx, []store.Completion{
		outcome(leasedClaim(purged.Event, "billing", lPurged), store.StatusDone, now)})
	if err != nil || len(recorded) != 1 || recorded[0] {
		t.Fatalf("CompleteDeliveries(purged event) = %v, %v; want not recorded", recorded, err)
	}
}

// testIngestLeasedPurged checks that a leased delivery whose event is
// purged while it is sent, deferred or not, is ended purged — its row
// written if it was deferred, counted purged — and keeps nothing of its
// send: its outcome, even a failure, is refused, and no claim takes it
// once the lease has run out, so that it is never sent again.
func testIngestLeasedPurged(t *testing.T, s store.DB) {
	until := baseTime.Add(testLease)
	held, l := leasedItem(dueEvent("evt_purged_held", baseTime), "billing", "tok", until)
	ingest(t, s, held)
	now := baseTime.Add(time.Second)
	if res := purge(t, s, "ops", "erasure", now, held.Event.ID); res.Ended != 1 {
		t.Errorf("purge ended %d deliveries, want 1 (deferred %v)", res.Ended, l.Deferred)
	}
	if d := theDelivery(t, s, held.Event.ID); d.ID != l.DeliveryID || d.Status != store.StatusPurged || d.Attempts != 1 || !d.LeaseUntil.IsZero() {
		t.Errorf("purged delivery = %+v, want %d purged, attempt 1, no lease", d, l.DeliveryID)
	}
	if c := stats(t, s, now).Destinations["billing"].Counts; c[store.StatusPurged] != 1 || c[store.StatusProcessing] != 0 {
		t.Errorf("counts after the purge = %v, want 1 purged, none processing", c)
	}

	failed := outcome(leasedClaim(held.Event, "billing", l), store.StatusFailed, now)
	failed.NextAttemptAt = now
	checkLeaseLost(t, s, failed)
	checkClaimed(t, claim(t, s, "billing", 10, until.Add(time.Minute)))
}

// testIngestLeasedKeptByPrune checks that retention never deletes the
// event of a delivery leased at ingest and not finished, deferred or
// not, however short the retention: its outcome is then recorded.
func testIngestLeasedKeptByPrune(t *testing.T, s store.DB) {
	until := baseTime.Add(testLease)
	held, l := leasedItem(dueEvent("evt_prune_held", baseTime), "billing", "tok", until)
	ingest(t, s, held)
	n, err := s.Prune(context.Background(), store.PruneRequest{DoneBefore: until, DeadBefore: until, Limit: 10})
	if err != nil || n != 0 {
		t.Fatalf("Prune = %d, %v; want nothing deleted", n, err)
	}
	complete(t, s, outcome(leasedClaim(held.Event, "billing", l), store.StatusDone, baseTime.Add(time.Second)))
	if d := theDelivery(t, s, held.Event.ID); d.Status != store.StatusDone {
		t.Errorf("delivery = %+v, want done", d)
	}
}

// testIngestLeasedReleased checks that a delivery leased at ingest and
// handed back unattempted is pending and due at once, its attempt
// uncounted, as a released claim is.
func testIngestLeasedReleased(t *testing.T, s store.DB) {
	it, l := leasedItem(dueEvent("evt_released", baseTime), "billing", "tok", baseTime.Add(testLease))
	ingest(t, s, it)
	err := s.ReleaseDeliveries(context.Background(), []store.Release{{DeliveryID: l.DeliveryID, LeaseToken: l.Token,
		Deferred: l.Deferred, EventID: it.Event.ID, Destination: "billing"}})
	if err != nil {
		t.Fatalf("ReleaseDeliveries: %v", err)
	}
	if d := theDelivery(t, s, it.Event.ID); d.Status != store.StatusPending || d.Attempts != 0 {
		t.Errorf("released delivery = %+v, want pending, no attempt", d)
	}
	checkClaimed(t, claim(t, s, "billing", 10, baseTime.Add(time.Second)), it.Event)
}

// testIngestLeasedCounts checks the stats through a leased delivery's
// life: processing once ingested (deferred too, with no row yet), done
// once completed — while the other delivery of its lease, still in
// flight, stays processing — and a pending one beside them counted as
// pending.
func testIngestLeasedCounts(t *testing.T, s store.DB) {
	until := baseTime.Add(testLease)
	a, la := leasedItem(eventAt("stripe", "evt_count_a", baseTime), "billing", "tok-a", until)
	b, _ := leasedItem(eventAt("stripe", "evt_count_b", baseTime), "billing", "tok-b", until)
	ingest(t, s, a, b, item(eventAt("stripe", "evt_count_c", baseTime), "billing"))

	now := baseTime.Add(time.Second)
	counts := func(pending, processing, done int64) store.DestinationStats {
		return store.DestinationStats{Counts: map[store.DeliveryStatus]int64{
			store.StatusPending: pending, store.StatusProcessing: processing, store.StatusFailed: 0,
			store.StatusDone: done, store.StatusSkipped: 0, store.StatusDead: 0, store.StatusPurged: 0,
		}, OldestPendingAge: now.Sub(stored(baseTime))}
	}
	checkStats(t, stats(t, s, now).Destinations, map[string]store.DestinationStats{"billing": counts(1, 2, 0)})
	complete(t, s, outcome(leasedClaim(a.Event, "billing", la), store.StatusDone, now))
	checkStats(t, stats(t, s, now).Destinations, map[string]store.DestinationStats{"billing": counts(1, 1, 1)})
}

// testIngestLeasedShown checks that a leased delivery is listed once
// through its life, deferred or not: in its event's deliveries and the
// events list processing, then done once completed, never twice.
func testIngestLeasedShown(t *testing.T, s store.DB) {
	until := baseTime.Add(testLease)
	it, l := leasedItem(eventAt("stripe", "evt_shown", baseTime), "billing", "tok", until)
	it.Deliveries = append(it.Deliveries, store.NewDelivery{Destination: "crm"})
	ingest(t, s, it)
	check := func(when string, billing store.DeliveryStatus) {
		t.Helper()
		ds := deliveries(t, s, it.Event.ID)
		if len(ds) != 2 || ds[0].ID != l.DeliveryID || ds[0].Status != billing || ds[1].Destination != "crm" {
			t.Errorf("%s: event's deliveries = %+v, want billing's %d %s, then crm's", when, ds, l.DeliveryID, billing)
		}
		page, _ := listPage(t, s, store.ListRequest{Limit: 10})
		if len(page) != 1 {
			t.Fatalf("%s: listed %d events, want 1", when, len(page))
		}
		want := []store.DeliveryState{{ID: l.DeliveryID, Destination: "billing", Status: billing, Attempts: 1}}
		if got := page[0].Deliveries; len(got) != 2 || got[0] != want[0] || got[1].Destination != "crm" {
			t.Errorf("%s: listed deliveries = %+v, want %+v then crm's", when, got, want)
		}
	}
	check("in flight", store.StatusProcessing)
	complete(t, s, outcome(leasedClaim(it.Event, "billing", l), store.StatusDone, baseTime.Add(time.Second)))
	check("done", store.StatusDone)
}

// testIngestLeasedBackfilled checks that a backfill to the destination of
// a leased delivery in flight, deferred or not, creates no second
// delivery beside it, and that the leased one's outcome is then recorded:
// one delivery, sent once.
func testIngestLeasedBackfilled(t *testing.T, s store.DB) {
	it, l := leasedItem(dueEvent("evt_backfilled", baseTime), "billing", "tok", baseTime.Add(testLease))
	ingest(t, s, it)
	now := baseTime.Add(time.Second)
	n, err := s.CreateDeliveries(context.Background(), []store.BackfillDelivery{{EventID: it.Event.ID, Destination: "billing"}}, now)
	if err != nil || n != 0 {
		t.Fatalf("CreateDeliveries beside a leased delivery = %d, %v; want none created (deferred %v)", n, err, l.Deferred)
	}
	checkClaimed(t, claim(t, s, "billing", 10, now))
	complete(t, s, outcome(leasedClaim(it.Event, "billing", l), store.StatusDone, now))
	if d := theDelivery(t, s, it.Event.ID); d.ID != l.DeliveryID || d.Status != store.StatusDone {
		t.Errorf("delivery = %+v, want the leased one, %d, done", d, l.DeliveryID)
	}
}

// testIngestLeasedReplayed checks that a replay of an event whose leased
// delivery is in flight, deferred or not, leaves it alone and counts it
// in flight, a dry run too, and re-arms it once its outcome is recorded.
func testIngestLeasedReplayed(t *testing.T, s store.DB) {
	it, l := leasedItem(dueEvent("evt_replayed", baseTime), "billing", "tok", baseTime.Add(testLease))
	ingest(t, s, it)
	now := baseTime.Add(time.Second)
	replay := func(dryRun bool, want store.ReplayResult) {
		t.Helper()
		res, err := s.Replay(context.Background(), store.ReplayRequest{Filter: store.EventFilter{IDs: []string{it.Event.ID}}, DryRun: dryRun, Now: now, Actor: "ops"})
		if err != nil || res != want {
			t.Errorf("Replay (dry run %v, deferred %v) = %+v, %v; want %+v", dryRun, l.Deferred, res, err, want)
		}
	}
	replay(true, store.ReplayResult{Matched: 1, InFlight: 1})
	replay(false, store.ReplayResult{Matched: 1, InFlight: 1})
	complete(t, s, outcome(leasedClaim(it.Event, "billing", l), store.StatusDone, now))
	replay(false, store.ReplayResult{Matched: 1, Rearmed: 1})
	if d := theDelivery(t, s, it.Event.ID); d.ID != l.DeliveryID || d.Status != store.StatusPending || d.ReplayCount != 1 {
		t.Errorf("delivery = %+v, want the leased one, %d, pending, replayed once", d, l.DeliveryID)
	}
}

// testIngestLeasedHoldsKey checks that a delivery leased at ingest with an
// ordering key holds its key as a claimed one does: the key's next
// delivery waits until the leased one is completed.
func testIngestLeasedHoldsKey(t *testing.T, s store.DB) {
	head := dueEvent("evt_key_head", baseTime)
	next := dueEvent("evt_key_next", baseTime.Add(time.Second))
	it, l := leasedItem(head, "billing", "tok", baseTime.Add(testLease))
	it.Deliveries[0].OrderingKey = "sub_1"
	ingest(t, s, it, store.IngestItem{Event: next, Deliveries: []store.NewDelivery{{Destination: "billing", OrderingKey: "sub_1"}}})

	now := baseTime.Add(time.Minute)
	checkClaimed(t, claim(t, s, "billing", 10, now))
	held := leasedClaim(head, "billing", l)
	held.Delivery.OrderingKey = "sub_1"
	complete(t, s, outcome(held, store.StatusDone, now))
	checkClaimed(t, claim(t, s, "billing", 10, now), next)
}

// testIngestRefusesBadLease checks that a lease without a token or an
// end fails the batch as invalid, and stores nothing.
func testIngestRefusesBadLease(t *testing.T, s store.DB) {
	for _, l := range []*store.Lease{{Until: baseTime}, {Token: "tok"}} {
		e := dueEvent("evt_bad_lease", baseTime)
		it := store.IngestItem{Event: e, Deliveries: []store.NewDelivery{{Destination: "billing", Lease: l}}}
		if _, err := s.Ingest(context.Background(), []store.IngestItem{it}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Ingest with lease %+v: error = %v, want ErrInvalid", l, err)
		}
		checkNoEvent(t, s, e.ID)
	}
}

// testIsPaused checks that IsPaused answers as claims do: a pause or
// resume made through the store counts at once.
func testIsPaused(t *testing.T, s store.DB) {
	ctx := context.Background()
	check := func(want bool) {
		t.Helper()
		got, err := s.IsPaused(ctx, "billing")
		if err != nil || got != want {
			t.Fatalf("IsPaused = %v, %v; want %v", got, err, want)
		}
	}
	check(false)
	if err := s.SetPaused(ctx, "billing", true, "ops", baseTime); err != nil {
		t.Fatalf("SetPaused: %v", err)
	}
	check(true)
	if got, err := s.IsPaused(ctx, "crm"); err != nil || got {
		t.Errorf("IsPaused(crm) = %v, %v; want false", got, err)
	}
	if err := s.SetPaused(ctx, "billing", false, "ops", baseTime); err != nil {
		t.Fatalf("SetPaused: %v", err)
	}
	check(false)
}

// testIngestLeasedWakesNoOne checks, on a driver with a listener, that an
// ingest whose deliveries are all leased wakes no listener — they belong
// to the node that leased them — while a pending one still wakes its
// destination's. (Notifications arrive in commit order, so the later
// ingest's proves that nothing came before it.)
func testIngestLeasedWakesNoOne(t *testing.T, s store.DB) {
	ch, p, ok := listenUnique(t, s)
	if !ok {
		return
	}

	leased, _ := leasedItem(newEvent("stripe", p+"leased"), p+"leased", "tok", baseTime.Add(testLease))
	ingest(t, s, leased)
	mixed, _ := leasedItem(newEvent("stripe", p+"mixed"), p+"leased", "tok2", baseTime.Add(testLease))
	mixed.Deliveries = append(mixed.Deliveries, store.NewDelivery{Destination: p + "pending"})
	ingest(t, s, mixed)
	if got := nextWoken(t, ch, p); got != p+"pending" {
		t.Fatalf("woken %q, want %q only", got, p+"pending")
	}
}
