package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/store"
)

// idAt returns a hookrelay event id as the receiver makes them, a ULID
// whose time is received, with random entropy.
func idAt(received time.Time) string {
	return ulid.MustNew(ulid.Timestamp(received), rand.Reader).String()
}

// idAtFill returns the ULID of received's millisecond whose entropy bytes
// are all fill: 0x00 makes the smallest id of that millisecond, 0xff the
// largest.
func idAtFill(received time.Time, fill byte) string {
	return ulid.MustNew(ulid.Timestamp(received), bytes.NewReader(bytes.Repeat([]byte{fill}, 10))).String()
}

// eventAt returns an event of source received at received, with an id of
// that time.
func eventAt(source, providerID string, received time.Time) store.Event {
	e := newEvent(source, providerID)
	e.ID = idAt(received)
	e.ReceivedAt = received
	e.OccurredAt = received.Add(-time.Second)
	return e
}

// listPage calls ListEvents and fails the test on error.
func listPage(t *testing.T, ops store.Operations, req store.ListRequest) ([]store.EventSummary, string) {
	t.Helper()
	events, next, err := ops.ListEvents(context.Background(), req)
	if err != nil {
		t.Fatalf("ListEvents(%+v): %v", req, err)
	}
	if events == nil {
		t.Fatalf("ListEvents(%+v) = nil, want a non-nil slice", req)
	}
	return events, next
}

// listIDs returns the ids of every event f selects, newest first, read
// in pages of 1000.
func listIDs(t *testing.T, ops store.Operations, f store.EventFilter) []string {
	t.Helper()
	var ids []string
	cursor := ""
	for {
		events, next := listPage(t, ops, store.ListRequest{Filter: f, Cursor: cursor, Limit: 1000})
		for _, e := range events {
			ids = append(ids, e.Event.ID)
		}
		if next == "" {
			return ids
		}
		cursor = next
	}
}

// idsOf returns the ids of events, newest (largest id) first.
func idsOf(events ...store.Event) []string {
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	return ids
}

// checkIDs fails unless got is want.
func checkIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// replay calls Replay and fails the test on error.
func replay(t *testing.T, ops store.Operations, req store.ReplayRequest) store.ReplayResult {
	t.Helper()
	res, err := ops.Replay(context.Background(), req)
	if err != nil {
		t.Fatalf("Replay(%+v): %v", req, err)
	}
	return res
}

// settle claims every due delivery of destination at now and leaves each
// of the events want names in the status it gives: processing (held under
// a lease of testLease until now + testLease), failed (due an hour after
// now), or final. The other claimed deliveries are released, pending
// again. It returns the claims it left processing, by event id.
func settle(t *testing.T, s store.DB, destination string, now time.Time, want map[string]store.DeliveryStatus) map[string]store.Claim {
	t.Helper()
	var release []store.Release
	held := map[string]store.Claim{}
	seen := 0
	for _, c := range claim(t, s, destination, 10_000, now) {
		status, ok := want[c.Delivery.EventID]
		switch {
		case !ok:
			release = append(release, store.Release{DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken})
			continue
		case status == store.StatusProcessing:
			held[c.Delivery.EventID] = c
		case status == store.StatusFailed:
			o := outcome(c, status, now)
			o.NextAttemptAt = now.Add(time.Hour)
			complete(t, s, o)
		default:
			complete(t, s, outcome(c, status, now))
		}
		seen++
	}
	if seen != len(want) {
		t.Fatalf("settle %s: claimed %d of the %d deliveries to settle", destination, seen, len(want))
	}
	if err := s.ReleaseDeliveries(context.Background(), release); err != nil {
		t.Fatalf("ReleaseDeliveries: %v", err)
	}
	return held
}

// deliveryTo returns the delivery of an event to destination.
func deliveryTo(t *testing.T, s store.DB, eventID, destination string) store.Delivery {
	t.Helper()
	for _, d := range deliveries(t, s, eventID) {
		if d.Destination == destination {
			return d
		}
	}
	t.Fatalf("event %s has no delivery to %s", eventID, destination)
	return store.Delivery{}
}
