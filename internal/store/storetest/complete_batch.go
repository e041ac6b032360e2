package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// completeAll calls CompleteDeliveries and fails the test on error.
func completeAll(t *testing.T, q store.Queue, cs ...store.Completion) []bool {
	t.Helper()
	recorded, err := q.CompleteDeliveries(context.Background(), cs)
	if err != nil {
		t.Fatalf("CompleteDeliveries of %d: %v", len(cs), err)
	}
	if len(recorded) != len(cs) {
		t.Fatalf("CompleteDeliveries of %d answered %d results", len(cs), len(recorded))
	}
	return recorded
}

// testCompleteBatchOutcomes records every kind of outcome in one call,
// among lost leases and a delivery listed twice: each recorded one has
// the effect CompleteDelivery has, the others none.
func testCompleteBatchOutcomes(t *testing.T, s store.DB) {
	var events []store.Event
	var items []store.IngestItem
	for i := range 5 {
		e := dueEvent(fmt.Sprintf("evt_%d", i), baseTime.Add(time.Duration(i)*time.Millisecond))
		events = append(events, e)
		items = append(items, item(e, "billing"))
	}
	ingest(t, s, items...)
	claims := claim(t, s, "billing", 5, baseTime.Add(time.Second))
	checkClaimed(t, claims, events...)
	now := baseTime.Add(2 * time.Second)
	retry := now.Add(time.Hour)

	failed := outcome(claims[1], store.StatusFailed, now)
	failed.NextAttemptAt = retry
	stale := outcome(claims[3], store.StatusDone, now)
	stale.LeaseToken = "not-a-token"
	unknown := outcome(claims[4], store.StatusDone, now)
	unknown.DeliveryID += 1000
	twice := outcome(claims[0], store.StatusDead, now)
	got := completeAll(t, s,
		outcome(claims[0], store.StatusDone, now), failed, stale, outcome(claims[2], store.StatusSkipped, now),
		unknown, twice,
	)
	if want := []bool{true, true, false, true, false, false}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("recorded = %v, want %v", got, want)
	}

	for _, c := range []struct {
		e      store.Event
		status store.DeliveryStatus
		tries  int
	}{
		{events[0], store.StatusDone, 1},
		{events[1], store.StatusFailed, 1},
		{events[2], store.StatusSkipped, 1},
		{events[3], store.StatusProcessing, 0},
		{events[4], store.StatusProcessing, 0},
	} {
		d := theDelivery(t, s, c.e.ID)
		if d.Status != c.status {
			t.Errorf("delivery of %s is %s, want %s", c.e.ProviderEventID, d.Status, c.status)
		}
		if as := attempts(t, s, d.ID); len(as) != c.tries {
			t.Errorf("delivery of %s has %d attempts recorded, want %d", c.e.ProviderEventID, len(as), c.tries)
		}
	}
	d := theDelivery(t, s, events[1].ID)
	checkTime(t, "NextAttemptAt", d.NextAttemptAt, retry)
	checkTime(t, "LeaseUntil", d.LeaseUntil, time.Time{})
	if d.LastStatusCode != 503 || d.LastError != failed.Attempt.Error {
		t.Errorf("failed delivery = %+v, want last code 503 and its error", d)
	}
	done := theDelivery(t, s, events[0].ID)
	checkTime(t, "FinishedAt", done.FinishedAt, now)
	as := attempts(t, s, done.ID)
	if len(as) != 1 || as[0].StatusCode != 200 || as[0].Duration != 1500*time.Millisecond {
		t.Errorf("attempts of the done delivery = %+v, want the one 200 of 1.5 s", as)
	}
	checkTime(t, "AttemptedAt", as[0].AttemptedAt, now.Add(-1500*time.Millisecond))

	// The status counts follow the batch: one done, one failed, one
	// skipped, two still processing.
	counts := stats(t, s, now).Destinations["billing"].Counts
	want := map[store.DeliveryStatus]int64{
		store.StatusDone: 1, store.StatusFailed: 1, store.StatusSkipped: 1, store.StatusProcessing: 2,
	}
	for _, status := range store.Statuses {
		if counts[status] != want[status] {
			t.Errorf("stats count %d %s deliveries after the batch, want %d", counts[status], status, want[status])
		}
	}

	// What was recorded in the batch is recorded once: a later
	// completion under the same leases is refused.
	checkLeaseLost(t, s, outcome(claims[0], store.StatusDone, now))
	checkLeaseLost(t, s, failed)
	complete(t, s, outcome(claims[3], store.StatusDone, now))
}

// testCompleteBatchEmpty checks that an empty batch records nothing and
// answers an empty, non-nil result.
func testCompleteBatchEmpty(t *testing.T, s store.DB) {
	got, err := s.CompleteDeliveries(context.Background(), nil)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("CompleteDeliveries(nil) = %v, %v; want an empty result", got, err)
	}
}

// testCompleteBatchRejectsLiveStatus checks that one completion that is
// not an outcome fails the whole batch, which then records nothing.
func testCompleteBatchRejectsLiveStatus(t *testing.T, s store.DB) {
	first, second := dueEvent("evt_1", baseTime), dueEvent("evt_2", baseTime.Add(time.Millisecond))
	ingest(t, s, item(first, "billing"), item(second, "billing"))
	claims := claim(t, s, "billing", 2, baseTime.Add(time.Second))
	checkClaimed(t, claims, first, second)
	bad := outcome(claims[1], store.StatusPending, baseTime)
	if _, err := s.CompleteDeliveries(context.Background(), []store.Completion{outcome(claims[0], store.StatusDone, baseTime), bad}); err == nil {
		t.Fatal("CompleteDeliveries with a pending status succeeded, want an error")
	}
	if d := theDelivery(t, s, first.ID); d.Status != store.StatusProcessing {
		t.Errorf("delivery of a failed batch is %s, want still processing", d.Status)
	}
	if got := completeAll(t, s, outcome(claims[0], store.StatusDone, baseTime), outcome(claims[1], store.StatusDone, baseTime)); got[0] != true || got[1] != true {
		t.Errorf("recorded = %v after the failed batch, want both", got)
	}
}

// testCompleteBatchReleasesKeys checks that the heads of several ordering
// keys completed in one batch let each key's next delivery be claimed, and
// that a failed head keeps holding its key.
func testCompleteBatchReleasesKeys(t *testing.T, s store.DB) {
	a1, b1 := dueEvent("a1", baseTime), dueEvent("b1", baseTime.Add(time.Millisecond))
	a2, b2 := dueEvent("a2", baseTime.Add(2*time.Millisecond)), dueEvent("b2", baseTime.Add(3*time.Millisecond))
	ingest(t, s, keyed(a1, "billing", "cus_a"), keyed(b1, "billing", "cus_b"), keyed(a2, "billing", "cus_a"), keyed(b2, "billing", "cus_b"))
	now := baseTime.Add(time.Second)
	heads := claim(t, s, "billing", 4, now)
	checkClaimed(t, heads, a1, b1)
	failed := outcome(heads[1], store.StatusFailed, now)
	failed.NextAttemptAt = now.Add(time.Hour)
	completeAll(t, s, outcome(heads[0], store.StatusDone, now), failed)
	checkClaimed(t, claim(t, s, "billing", 4, now), a2)
}
