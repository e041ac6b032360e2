package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// baseTime has nanoseconds, which stores keep to the microsecond.
var baseTime = time.Date(2026, time.March, 3, 9, 30, 15, 123456789, time.UTC)

var lastID atomic.Int64

// newID returns a hookrelay event id unique within the test binary and
// increasing, as real ids are.
func newID() string {
	return fmt.Sprintf("evt_%012d", lastID.Add(1))
}

// newEvent returns an event with every field set.
func newEvent(source, providerID string) store.Event {
	return store.Event{
		ID:              newID(),
		Source:          source,
		ProviderEventID: providerID,
		IDOrigin:        store.IDFromHeader,
		Type:            "invoice.paid",
		Body:            []byte(`{"id":"` + providerID + `","type":"invoice.paid"}`),
		ContentType:     "application/json",
		Headers:         map[string][]string{"User-Agent": {"Stripe/1.0"}},
		SignatureSlot:   0,
		OccurredAt:      baseTime.Add(-time.Second),
		ReceivedAt:      baseTime,
	}
}

// item wraps e with one delivery per destination, none ordered.
func item(e store.Event, destinations ...string) store.IngestItem {
	it := store.IngestItem{Event: e}
	for _, d := range destinations {
		it.Deliveries = append(it.Deliveries, store.NewDelivery{Destination: d})
	}
	return it
}

// randomBytes returns n reproducible pseudo-random bytes.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// ingest calls Ingest and fails the test on error or a result of the wrong
// length.
func ingest(t *testing.T, s store.DB, items ...store.IngestItem) []store.IngestOutcome {
	t.Helper()
	got, err := s.Ingest(context.Background(), items)
	if err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	if len(got) != len(items) {
		t.Fatalf("Ingest returned %d results for %d items", len(got), len(items))
	}
	return got
}

// checkInserted fails unless Ingest's results are want: true for an
// event stored, false for a duplicate.
func checkInserted(t *testing.T, got []store.IngestOutcome, want ...bool) {
	t.Helper()
	outcomes := make([]store.IngestOutcome, len(want))
	for i, stored := range want {
		outcomes[i] = store.IngestDuplicate
		if stored {
			outcomes[i] = store.IngestStored
		}
	}
	checkOutcomes(t, got, outcomes...)
}

// checkOutcomes fails unless Ingest's results are want.
func checkOutcomes(t *testing.T, got []store.IngestOutcome, want ...store.IngestOutcome) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("Ingest outcomes %v, want %v", got, want)
	}
}

// getEvent calls GetEvent and fails the test on error.
func getEvent(t *testing.T, s store.DB, id string) store.Event {
	t.Helper()
	e, err := s.GetEvent(context.Background(), id)
	if err != nil {
		t.Fatalf("GetEvent(%s): %v", id, err)
	}
	return e
}

// checkNoEvent fails unless GetEvent reports id unknown.
func checkNoEvent(t *testing.T, s store.DB, id string) {
	t.Helper()
	if _, err := s.GetEvent(context.Background(), id); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetEvent(%s) error = %v, want ErrNotFound", id, err)
	}
}

// deliveries calls EventDeliveries and fails the test on error.
func deliveries(t *testing.T, s store.DB, eventID string) []store.Delivery {
	t.Helper()
	ds, err := s.EventDeliveries(context.Background(), eventID)
	if err != nil {
		t.Fatalf("EventDeliveries(%s): %v", eventID, err)
	}
	if ds == nil {
		t.Fatalf("EventDeliveries(%s) = nil, want a non-nil slice", eventID)
	}
	return ds
}

// stored is what a store returns for t: UTC, to the microsecond.
func stored(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}

// checkTime fails unless got is want as stored, in UTC.
func checkTime(t *testing.T, field string, got, want time.Time) {
	t.Helper()
	want = stored(want)
	if !got.Equal(want) || got.IsZero() != want.IsZero() {
		t.Errorf("%s = %v, want %v", field, got, want)
	}
	if !got.IsZero() && got.Location() != time.UTC {
		t.Errorf("%s is in %v, want UTC", field, got.Location())
	}
}

// checkEvent fails unless got is want as stored.
// checkRawQuery fails unless the event read by what returns the raw
// query want, byte for byte. checkEvent leaves it out: only GetEvent and
// EventByProviderID read it.
func checkRawQuery(t *testing.T, what string, got store.Event, want string) {
	t.Helper()
	if got.RawQuery != want {
		t.Errorf("%s: raw query of %s = %q, want %q", what, got.ID, got.RawQuery, want)
	}
}

func checkEvent(t *testing.T, got, want store.Event) {
	t.Helper()
	if got.ID != want.ID || got.Source != want.Source || got.ProviderEventID != want.ProviderEventID ||
		got.IDOrigin != want.IDOrigin || got.Type != want.Type || got.ContentType != want.ContentType ||
		got.SignatureSlot != want.SignatureSlot {
		t.Errorf("event = {%q %q %q %q %q %q slot %d}, want {%q %q %q %q %q %q slot %d}",
			got.ID, got.Source, got.ProviderEventID, got.IDOrigin, got.Type, got.ContentType, got.SignatureSlot,
			want.ID, want.Source, want.ProviderEventID, want.IDOrigin, want.Type, want.ContentType, want.SignatureSlot)
	}
	if !bytes.Equal(got.Body, want.Body) || got.Body == nil {
		t.Errorf("body differs: got %d bytes (nil %t), want %d bytes", len(got.Body), got.Body == nil, len(want.Body))
	}
	if !maps.EqualFunc(got.Headers, want.Headers, slices.Equal[[]string]) {
		t.Errorf("headers = %v, want %v", got.Headers, want.Headers)
	}
	checkTime(t, "OccurredAt", got.OccurredAt, want.OccurredAt)
	checkTime(t, "ReceivedAt", got.ReceivedAt, want.ReceivedAt)
}
