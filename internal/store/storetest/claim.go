package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testClaimOldestDueFirst checks that a claim returns the due deliveries
// by due time, whatever their arrival, each leased, with its event.
func testClaimOldestDueFirst(t *testing.T, s store.DB) {
	late := dueEvent("evt_late", baseTime.Add(2*time.Second))
	early := dueEvent("evt_early", baseTime)
	middle := dueEvent("evt_middle", baseTime.Add(time.Second))
	ingest(t, s, item(late, "billing"), item(early, "billing"), item(middle, "billing"))

	now := baseTime.Add(time.Minute)
	claims := claim(t, s, "billing", 10, now)
	checkClaimed(t, claims, early, middle, late)
	tokens := map[string]bool{}
	for i, c := range claims {
		want := []store.Event{early, middle, late}[i]
		checkEvent(t, c.Event, want)
		d := c.Delivery
		if d.Status != store.StatusProcessing || d.Attempts != 1 || d.Destination != "billing" || d.EventID != want.ID {
			t.Errorf("claimed delivery = %+v, want processing, attempt 1, to billing, of %s", d, want.ID)
		}
		checkTime(t, "LeaseUntil", d.LeaseUntil, now.Add(testLease))
		checkTime(t, "NextAttemptAt", d.NextAttemptAt, want.ReceivedAt)
		checkTime(t, "UpdatedAt", d.UpdatedAt, now)
		if c.LeaseToken == "" || tokens[c.LeaseToken] {
			t.Errorf("lease token %q is empty or not unique", c.LeaseToken)
		}
		tokens[c.LeaseToken] = true

		stored := theDelivery(t, s, want.ID)
		if stored.Status != store.StatusProcessing || stored.Attempts != 1 || stored.ID != d.ID {
			t.Errorf("stored delivery = %+v, want the claim's, processing, attempt 1", stored)
		}
		checkTime(t, "stored LeaseUntil", stored.LeaseUntil, now.Add(testLease))
	}
}

func testClaimNotYetDue(t *testing.T, s store.DB) {
	e := dueEvent("evt_1", baseTime.Add(5*time.Second))
	ingest(t, s, item(e, "billing"))
	checkClaimed(t, claim(t, s, "billing", 10, baseTime))
	checkClaimed(t, claim(t, s, "billing", 10, baseTime.Add(5*time.Second-time.Microsecond)))
	checkClaimed(t, claim(t, s, "billing", 10, baseTime.Add(5*time.Second)), e)
	if d := theDelivery(t, s, e.ID); d.Attempts != 1 {
		t.Errorf("attempts = %d after one claim and two empty ones, want 1", d.Attempts)
	}
}

// testClaimLeaseHolds checks that a claimed delivery is not claimed again
// while its lease lasts, and is, counting one more attempt, once it has
// run out; the first holder's outcome is then refused.
func testClaimLeaseHolds(t *testing.T, s store.DB) {
	e := dueEvent("evt_1", baseTime)
	ingest(t, s, item(e, "billing"))

	first := claim(t, s, "billing", 10, baseTime)
	checkClaimed(t, first, e)
	checkClaimed(t, claim(t, s, "billing", 10, baseTime.Add(testLease-time.Microsecond)))

	expiry := baseTime.Add(testLease)
	second := claim(t, s, "billing", 10, expiry)
	checkClaimed(t, second, e)
	if second[0].Delivery.Attempts != 2 || second[0].LeaseToken == first[0].LeaseToken {
		t.Errorf("reclaim: attempts %d, token %q; want 2 and a new token (was %q)",
			second[0].Delivery.Attempts, second[0].LeaseToken, first[0].LeaseToken)
	}
	checkTime(t, "LeaseUntil", second[0].Delivery.LeaseUntil, expiry.Add(testLease))
	checkLeaseLost(t, s, outcome(first[0], store.StatusDone, expiry))
	complete(t, s, outcome(second[0], store.StatusDone, expiry))
}

func testClaimMax(t *testing.T, s store.DB) {
	var events []store.Event
	for i := range 5 {
		e := dueEvent(string(rune('a'+i)), baseTime.Add(time.Duration(i)*time.Second))
		events = append(events, e)
		ingest(t, s, item(e, "billing"))
	}
	now := baseTime.Add(time.Minute)
	checkClaimed(t, claim(t, s, "billing", 0, now))
	checkClaimed(t, claim(t, s, "billing", 2, now), events[0], events[1])
	checkClaimed(t, claim(t, s, "billing", 2, now), events[2], events[3])
	checkClaimed(t, claim(t, s, "billing", 2, now), events[4])
	checkClaimed(t, claim(t, s, "billing", 2, now))
}

// testClaimDestinationsIndependent checks that a claim takes only its
// destination's deliveries, and that one ordering key on two destinations
// is two independent keys.
func testClaimDestinationsIndependent(t *testing.T, s store.DB) {
	a := dueEvent("evt_a", baseTime)
	b := dueEvent("evt_b", baseTime.Add(time.Second))
	both := func(e store.Event) store.IngestItem {
		return store.IngestItem{Event: e, Deliveries: []store.NewDelivery{
			{Destination: "billing", OrderingKey: "sub_1"}, {Destination: "crm", OrderingKey: "sub_1"},
		}}
	}
	ingest(t, s, both(a), both(b), item(dueEvent("evt_audit", baseTime), "audit"))

	now := baseTime.Add(time.Minute)
	billing := claim(t, s, "billing", 10, now)
	checkClaimed(t, billing, a)
	crm := claim(t, s, "crm", 10, now)
	checkClaimed(t, crm, a)
	if billing[0].Delivery.Destination != "billing" || crm[0].Delivery.Destination != "crm" {
		t.Errorf("claimed deliveries to %s and %s, want billing and crm", billing[0].Delivery.Destination, crm[0].Delivery.Destination)
	}
	complete(t, s, outcome(crm[0], store.StatusDone, now))
	checkClaimed(t, claim(t, s, "crm", 10, now), b)
	checkClaimed(t, claim(t, s, "billing", 10, now))
	checkClaimed(t, claim(t, s, "nowhere", 10, now))
}

func testClaimRejectsNoLease(t *testing.T, s store.DB) {
	ingest(t, s, item(dueEvent("evt_1", baseTime), "billing"))
	_, err := s.ClaimDeliveries(context.Background(), store.ClaimRequest{Destination: "billing", Max: 1, Now: baseTime})
	if err == nil {
		t.Fatal("ClaimDeliveries without a lease succeeded, want an error")
	}
	checkClaimed(t, claim(t, s, "billing", 1, baseTime), theEvent(t, s, "evt_1"))
}

// theEvent returns the stored event of stripe's provider id.
func theEvent(t *testing.T, s store.DB, providerID string) store.Event {
	t.Helper()
	e, err := s.EventByProviderID(context.Background(), "stripe", providerID)
	if err != nil {
		t.Fatalf("EventByProviderID(%s): %v", providerID, err)
	}
	return e
}

func testNextDue(t *testing.T, s store.DB) {
	checkNextDue(t, s, "billing", time.Time{})
	a := dueEvent("evt_a", baseTime.Add(5*time.Second))
	b := dueEvent("evt_b", baseTime.Add(3*time.Second))
	ingest(t, s, item(a, "billing"), item(b, "billing"), item(dueEvent("evt_c", baseTime), "crm"))
	checkNextDue(t, s, "billing", b.ReceivedAt)

	// b is claimed: the next is a, then b's lease end once a is done.
	now := baseTime.Add(4 * time.Second)
	cb := claim(t, s, "billing", 10, now)
	checkClaimed(t, cb, b)
	checkNextDue(t, s, "billing", a.ReceivedAt)
	ca := claim(t, s, "billing", 10, a.ReceivedAt)
	checkClaimed(t, ca, a)
	complete(t, s, outcome(ca[0], store.StatusDone, a.ReceivedAt))
	checkNextDue(t, s, "billing", now.Add(testLease))

	retry := now.Add(time.Hour)
	fail := outcome(cb[0], store.StatusFailed, now)
	fail.NextAttemptAt = retry
	complete(t, s, fail)
	checkNextDue(t, s, "billing", retry)
	cb = claim(t, s, "billing", 10, retry)
	complete(t, s, outcome(cb[0], store.StatusDead, retry))
	checkNextDue(t, s, "billing", time.Time{})
	checkNextDue(t, s, "crm", baseTime)
}
