package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// A claim that knows the destination's max attempts counts an expired
// lease as an attempt lost with its worker: a handler that takes its
// process down with it cannot be handed out again and again for ever.

// claimCounting is claim with the destination's max attempts set.
func claimCounting(t *testing.T, q store.Queue, destination string, max, maxAttempts int, now time.Time) []store.Claim {
	t.Helper()
	cs, err := q.ClaimDeliveries(context.Background(), store.ClaimRequest{
		Destination: destination, Max: max, Lease: testLease, Now: now, MaxAttempts: maxAttempts,
	})
	if err != nil {
		t.Fatalf("ClaimDeliveries(%s, %d, %v, max attempts %d): %v", destination, max, now, maxAttempts, err)
	}
	if cs == nil {
		t.Fatalf("ClaimDeliveries(%s) = nil, want a non-nil slice", destination)
	}
	return cs
}

// checkLostAttempts fails unless the delivery's attempts are n lost ones,
// each attempted at the claim that leased it and lasting its lease.
func checkLostAttempts(t *testing.T, q store.Queue, deliveryID int64, claimedAt ...time.Time) {
	t.Helper()
	as := attempts(t, q, deliveryID)
	if len(as) != len(claimedAt) {
		t.Fatalf("delivery %d has %d attempts, want %d lost ones: %+v", deliveryID, len(as), len(claimedAt), as)
	}
	for i, a := range as {
		if a.Error != store.LostAttemptError || a.StatusCode != 0 || a.Duration != testLease {
			t.Errorf("attempt %d = %+v, want a lost one (%q) of %s", i+1, a, store.LostAttemptError, testLease)
		}
		checkTime(t, "AttemptedAt", a.AttemptedAt, claimedAt[i])
	}
}

// testClaimCountsLostAttempts checks that an expired lease below the max
// attempts is recorded as a lost attempt and claimed again in the same
// claim, and that one at the max is marked dead, returned as such, and
// never claimed again.
func testClaimCountsLostAttempts(t *testing.T, s store.DB) {
	e := dueEvent("evt_poison", baseTime)
	ingest(t, s, item(e, "billing"))
	first := claimCounting(t, s, "billing", 10, 2, baseTime)
	checkClaimed(t, first, e)

	expiry := baseTime.Add(testLease)
	checkClaimed(t, claimCounting(t, s, "billing", 10, 2, expiry.Add(-time.Microsecond)))
	checkLostAttempts(t, s, first[0].Delivery.ID)

	second := claimCounting(t, s, "billing", 10, 2, expiry)
	checkClaimed(t, second, e)
	if d := second[0].Delivery; d.Status != store.StatusProcessing || d.Attempts != 2 || second[0].LeaseToken == "" {
		t.Errorf("reclaimed = %+v, token %q; want processing, attempt 2, a lease", d, second[0].LeaseToken)
	}
	checkLostAttempts(t, s, first[0].Delivery.ID, baseTime)
	checkLeaseLost(t, s, outcome(first[0], store.StatusDone, expiry))

	buried := expiry.Add(testLease)
	third := claimCounting(t, s, "billing", 10, 2, buried)
	checkClaimed(t, third, e)
	claimed, dead := store.SplitLost(third)
	if len(claimed) != 0 || len(dead) != 1 {
		t.Fatalf("SplitLost = %d claimed, %d dead; want the one dead", len(claimed), len(dead))
	}
	got := dead[0]
	checkEvent(t, got.Event, e)
	if got.LeaseToken != "" || got.Delivery.Status != store.StatusDead || got.Delivery.Attempts != 2 ||
		got.Delivery.LastError != store.LostAttemptError {
		t.Errorf("dead claim = %+v, token %q; want dead after 2 attempts with the lost error and no token", got.Delivery, got.LeaseToken)
	}
	d := theDelivery(t, s, e.ID)
	if d.Status != store.StatusDead || d.Attempts != 2 || d.LastError != store.LostAttemptError || !d.LeaseUntil.IsZero() {
		t.Errorf("stored = %+v, want dead after 2 attempts with the lost error and no lease", d)
	}
	checkTime(t, "FinishedAt", d.FinishedAt, buried)
	checkLostAttempts(t, s, d.ID, baseTime, expiry)
	checkLeaseLost(t, s, outcome(second[0], store.StatusDone, buried))

	checkClaimed(t, claimCounting(t, s, "billing", 10, 2, buried.Add(24*time.Hour)))
	if st := stats(t, s, buried).Destinations["billing"]; st.Counts[store.StatusDead] != 1 || st.Counts[store.StatusProcessing] != 0 {
		t.Errorf("stats = %+v, want one dead and none processing", st.Counts)
	}
}

// testLostHeadFreesItsKey checks that a key's head found lost with its
// attempts run out lets the claim that buries it take the key's next
// delivery.
func testLostHeadFreesItsKey(t *testing.T, s store.DB) {
	head := dueEvent("evt_head", baseTime)
	next := dueEvent("evt_next", baseTime.Add(time.Second))
	ingest(t, s, keyed(head, "billing", "cus_1"), keyed(next, "billing", "cus_1"))
	checkClaimed(t, claimCounting(t, s, "billing", 10, 1, baseTime), head)

	later := baseTime.Add(testLease)
	cs := claimCounting(t, s, "billing", 10, 1, later)
	claimed, dead := store.SplitLost(cs)
	checkClaimed(t, dead, head)
	checkClaimed(t, claimed, next)
	if claimed[0].Delivery.Status != store.StatusProcessing || claimed[0].LeaseToken == "" {
		t.Errorf("next of the key = %+v, want it leased", claimed[0])
	}
}

// testLostAllCountedByOneClaim checks that a claim for one delivery still
// ends every expired lease as a lost attempt, and that the leases it ended
// are then due, in their place, to any claim, counting one more attempt.
func testLostAllCountedByOneClaim(t *testing.T, s store.DB) {
	var evs []store.Event
	for i, id := range []string{"evt_lost_a", "evt_lost_b", "evt_lost_c"} {
		e := dueEvent(id, baseTime.Add(time.Duration(i)*time.Second))
		evs = append(evs, e)
		ingest(t, s, item(e, "billing"))
	}
	checkClaimed(t, claimCounting(t, s, "billing", 10, 5, baseTime.Add(time.Minute)), evs...)

	later := baseTime.Add(time.Minute + testLease)
	checkClaimed(t, claimCounting(t, s, "billing", 1, 5, later), evs[0])
	for _, e := range evs[1:] {
		d := theDelivery(t, s, e.ID)
		if d.Status != store.StatusFailed || d.Attempts != 1 || d.LastError != store.LostAttemptError {
			t.Errorf("delivery of %s = %+v, want failed after its lost attempt", e.ProviderEventID, d)
		}
		checkTime(t, "NextAttemptAt", d.NextAttemptAt, e.ReceivedAt)
		checkLostAttempts(t, s, d.ID, baseTime.Add(time.Minute))
	}
	checkNextDue(t, s, "billing", evs[1].ReceivedAt)
	rest := claim(t, s, "billing", 10, later)
	checkClaimed(t, rest, evs[1:]...)
	for _, c := range rest {
		if c.Delivery.Attempts != 2 {
			t.Errorf("claimed %s with %d attempts, want 2", c.Delivery.EventID, c.Delivery.Attempts)
		}
	}
}
