package storetest

import (
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// orderedEvent returns an event that occurred at occurred (none when
// zero) and was received, and so is due, at received.
func orderedEvent(providerID string, occurred, received time.Time) store.Event {
	e := newEvent("stripe", providerID)
	e.OccurredAt = occurred
	e.ReceivedAt = received
	return e
}

// interleaved ingests, in this order, A1 B1 A2 B2 to billing under keys A
// and B, occurring a second apart and all due at baseTime, then U, with no
// key.
func interleaved(t *testing.T, s store.DB) (a1, b1, a2, b2, u store.Event) {
	t.Helper()
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i-10) * time.Second) }
	a1 = orderedEvent("A1", at(0), baseTime)
	b1 = orderedEvent("B1", at(1), baseTime)
	a2 = orderedEvent("A2", at(2), baseTime)
	b2 = orderedEvent("B2", at(3), baseTime)
	u = orderedEvent("U", at(4), baseTime)
	ingest(t, s, keyed(a1, "billing", "A"), keyed(b1, "billing", "B"), keyed(a2, "billing", "A"), keyed(b2, "billing", "B"))
	ingest(t, s, item(u, "billing"))
	return a1, b1, a2, b2, u
}

func testOrderingInterleavedKeys(t *testing.T, s store.DB) {
	a1, b1, a2, b2, u := interleaved(t, s)
	now := baseTime.Add(time.Minute)
	first := claim(t, s, "billing", 10, now)
	checkClaimed(t, first, a1, b1, u)
	checkClaimed(t, claim(t, s, "billing", 10, now))

	complete(t, s, outcome(first[0], store.StatusDone, now))
	second := claim(t, s, "billing", 10, now)
	checkClaimed(t, second, a2)
	complete(t, s, outcome(first[1], store.StatusSkipped, now))
	checkClaimed(t, claim(t, s, "billing", 10, now), b2)
	checkClaimed(t, claim(t, s, "billing", 10, now))
}

// testOrderingFailingHeadBlocksOnlyItsKey checks that a head that failed
// holds its key until it is final, while other keys go on.
func testOrderingFailingHeadBlocksOnlyItsKey(t *testing.T, s store.DB) {
	a1, b1, a2, b2, u := interleaved(t, s)
	now := baseTime.Add(time.Minute)
	first := claim(t, s, "billing", 2, now)
	checkClaimed(t, first, a1, b1)

	retry := now.Add(time.Hour)
	fail := outcome(first[0], store.StatusFailed, now)
	fail.NextAttemptAt = retry
	complete(t, s, fail)
	complete(t, s, outcome(first[1], store.StatusDone, now))
	rest := claim(t, s, "billing", 10, now)
	checkClaimed(t, rest, b2, u)
	for _, c := range rest {
		complete(t, s, outcome(c, store.StatusDone, now))
	}
	checkClaimed(t, claim(t, s, "billing", 10, now.Add(30*time.Minute)))

	again := claim(t, s, "billing", 10, retry)
	checkClaimed(t, again, a1)
	if again[0].Delivery.Attempts != 2 {
		t.Errorf("retried head has %d attempts, want 2", again[0].Delivery.Attempts)
	}
	complete(t, s, outcome(again[0], store.StatusDead, retry))
	checkClaimed(t, claim(t, s, "billing", 10, retry), a2)
}

// testOrderingFinalReleasesKey checks that every final outcome of a head
// lets the next delivery of its key go.
func testOrderingFinalReleasesKey(t *testing.T, s store.DB) {
	for _, status := range []store.DeliveryStatus{store.StatusDone, store.StatusSkipped, store.StatusDead} {
		t.Run(string(status), func(t *testing.T) {
			key := "sub_" + string(status)
			first := orderedEvent(key+"_1", baseTime.Add(-2*time.Second), baseTime)
			second := orderedEvent(key+"_2", baseTime.Add(-time.Second), baseTime)
			ingest(t, s, keyed(first, string(status), key), keyed(second, string(status), key))
			head := claim(t, s, string(status), 10, baseTime)
			checkClaimed(t, head, first)
			complete(t, s, outcome(head[0], status, baseTime))
			checkClaimed(t, claim(t, s, string(status), 10, baseTime), second)
		})
	}
}

// testOrderingByOccurredAt checks that a key's deliveries go in the order
// their events occurred, whatever the order and time they arrived in;
// an event that asserts no time counts as occurring when it was received.
func testOrderingByOccurredAt(t *testing.T, s store.DB) {
	late := orderedEvent("late", baseTime.Add(10*time.Second), baseTime)
	early := orderedEvent("early", baseTime, baseTime.Add(time.Second))
	untimed := orderedEvent("untimed", time.Time{}, baseTime.Add(5*time.Second))
	ingest(t, s, keyed(late, "billing", "A"))
	ingest(t, s, keyed(untimed, "billing", "A"), keyed(early, "billing", "A"))

	now := baseTime.Add(time.Minute)
	for _, want := range []store.Event{early, untimed, late} {
		c := claim(t, s, "billing", 10, now)
		checkClaimed(t, c, want)
		complete(t, s, outcome(c[0], store.StatusDone, now))
	}
	checkClaimed(t, claim(t, s, "billing", 10, now))
}

// testOrderingLeaseHoldsKey checks that a delivery holding a live lease
// keeps its key even from an older event that arrived after it was
// claimed, and that a head whose lease ran out is claimed again before
// the rest of its key.
func testOrderingLeaseHoldsKey(t *testing.T, s store.DB) {
	second := orderedEvent("second", baseTime, baseTime)
	ingest(t, s, keyed(second, "billing", "A"))
	held := claim(t, s, "billing", 10, baseTime)
	checkClaimed(t, held, second)

	first := orderedEvent("first", baseTime.Add(-time.Hour), baseTime)
	ingest(t, s, keyed(first, "billing", "A"))
	checkClaimed(t, claim(t, s, "billing", 10, baseTime.Add(time.Minute)))

	// second's lease runs out: first, now the key's head, goes first.
	expiry := baseTime.Add(testLease)
	c := claim(t, s, "billing", 10, expiry)
	checkClaimed(t, c, first)
	checkClaimed(t, claim(t, s, "billing", 10, expiry.Add(time.Minute)))
	complete(t, s, outcome(c[0], store.StatusDone, expiry))
	again := claim(t, s, "billing", 10, expiry)
	checkClaimed(t, again, second)
	if again[0].Delivery.Attempts != 2 {
		t.Errorf("reclaimed delivery has %d attempts, want 2", again[0].Delivery.Attempts)
	}
	checkLeaseLost(t, s, outcome(held[0], store.StatusDone, expiry))
}

// testOrderingExpiredHeadReclaimedFirst checks that a head whose lease
// ran out is claimed again, not the next delivery of its key.
func testOrderingExpiredHeadReclaimedFirst(t *testing.T, s store.DB) {
	a1, b1, _, _, u := interleaved(t, s)
	checkClaimed(t, claim(t, s, "billing", 1, baseTime), a1)
	again := claim(t, s, "billing", 10, baseTime.Add(testLease))
	checkClaimed(t, again, a1, b1, u)
	if again[0].Delivery.Attempts != 2 {
		t.Errorf("reclaimed head has %d attempts, want 2", again[0].Delivery.Attempts)
	}
}
