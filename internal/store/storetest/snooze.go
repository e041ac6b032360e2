package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// snooze calls SnoozeDelivery for c, due at until, and fails the test on
// error.
func snooze(t *testing.T, q store.Queue, c store.Claim, until, now time.Time) {
	t.Helper()
	if err := q.SnoozeDelivery(context.Background(), store.Snooze{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken, Until: until, Now: now}); err != nil {
		t.Fatalf("SnoozeDelivery(%d): %v", c.Delivery.ID, err)
	}
}

// testSnoozeUncounted checks that a snoozed delivery is handed back
// without its attempt, due at the snooze's end and not before, recording
// nothing: pending when it had no attempt before, failed with its last
// error otherwise; and that a lease no longer held is reported lost.
func testSnoozeUncounted(t *testing.T, s store.DB) {
	e := dueEvent("evt_snooze", baseTime)
	ingest(t, s, item(e, "billing"))
	now := baseTime.Add(time.Minute)
	first := claim(t, s, "billing", 10, now)
	checkClaimed(t, first, e)
	until := now.Add(time.Hour)
	snooze(t, s, first[0], until, now)

	d := theDelivery(t, s, e.ID)
	if d.Status != store.StatusPending || d.Attempts != 0 || !d.LeaseUntil.IsZero() || d.LastError != "" {
		t.Errorf("snoozed = %+v, want pending, no attempt, no lease, no error", d)
	}
	checkTime(t, "NextAttemptAt", d.NextAttemptAt, until)
	checkNextDue(t, s, "billing", until)
	if as := attempts(t, s, d.ID); len(as) != 0 {
		t.Errorf("attempts = %+v, want none", as)
	}
	checkLeaseLost(t, s, outcome(first[0], store.StatusDone, now))
	err := s.SnoozeDelivery(context.Background(), store.Snooze{DeliveryID: d.ID, LeaseToken: first[0].LeaseToken, Until: until, Now: now})
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("second SnoozeDelivery = %v, want ErrLeaseLost", err)
	}
	checkClaimed(t, claim(t, s, "billing", 10, until.Add(-time.Microsecond)))

	second := claim(t, s, "billing", 10, until)
	checkClaimed(t, second, e)
	if second[0].Delivery.Attempts != 1 {
		t.Errorf("claimed after the snooze with %d attempts, want 1", second[0].Delivery.Attempts)
	}
	failedAt := until.Add(time.Second)
	fail := outcome(second[0], store.StatusFailed, failedAt)
	fail.NextAttemptAt = failedAt
	complete(t, s, fail)
	third := claim(t, s, "billing", 10, failedAt)
	checkClaimed(t, third, e)
	snooze(t, s, third[0], failedAt.Add(time.Hour), failedAt)
	d = theDelivery(t, s, e.ID)
	if d.Status != store.StatusFailed || d.Attempts != 1 || d.LastError != "server answered 503" {
		t.Errorf("snoozed after a failure = %+v, want failed after its 1 attempt, its error kept", d)
	}
	checkTime(t, "NextAttemptAt", d.NextAttemptAt, failedAt.Add(time.Hour))
	if as := attempts(t, s, d.ID); len(as) != 1 {
		t.Errorf("%d attempts recorded, want the failure's alone", len(as))
	}
}
