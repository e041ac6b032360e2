package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testActivity counts the events received and the attempts made per
// minute of a window, zeros included, and nothing outside it.
func testActivity(t *testing.T, s store.DB) {
	start := baseTime.Truncate(time.Minute)
	before := eventAt("stripe", "evt_before", start.Add(-time.Second))
	first := eventAt("stripe", "evt_first", start)
	second := eventAt("stripe", "evt_second", start.Add(30*time.Second))
	third := eventAt("stripe", "evt_third", start.Add(2*time.Minute+59*time.Second))
	after := eventAt("stripe", "evt_after", start.Add(3*time.Minute))
	ingest(t, s, item(before), item(first, "billing"), item(second, "billing"), item(third), item(after))

	// Two attempts in the second minute: one delivered, one failed.
	claims := claim(t, s, "billing", 10, start.Add(time.Minute))
	if len(claims) != 2 {
		t.Fatalf("claimed %d deliveries, want 2", len(claims))
	}
	for i, c := range claims {
		done := store.Completion{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken, Status: store.StatusDone, Now: start.Add(time.Minute + 10*time.Second),
			Attempt: store.Attempt{AttemptedAt: start.Add(time.Minute + 5*time.Second), Duration: time.Millisecond, StatusCode: 204}}
		if i == 1 {
			done.Status, done.NextAttemptAt = store.StatusFailed, start.Add(time.Hour)
			done.Attempt.StatusCode, done.Attempt.Error = 0, "connection refused"
		}
		complete(t, s, done)
	}

	got, err := s.Activity(context.Background(), start, start.Add(3*time.Minute), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.ActivityBucket{
		{Start: start, Received: 2},
		{Start: start.Add(time.Minute), Delivered: 1, Failed: 1},
		{Start: start.Add(2 * time.Minute), Received: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("Activity = %+v, want %+v", got, want)
	}
	for i := range want {
		if !got[i].Start.Equal(want[i].Start) || got[i].Received != want[i].Received ||
			got[i].Delivered != want[i].Delivered || got[i].Failed != want[i].Failed {
			t.Errorf("bucket %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
