package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

func testIngestRoundTrip(t *testing.T, s store.DB) {
	paris := time.FixedZone("CET", 3600)
	full := newEvent("stripe", "evt_full")
	full.IDOrigin = store.IDFromBody
	full.SignatureSlot = 2
	full.Headers = map[string][]string{
		"Content-Type":     {"application/json; charset=utf-8"},
		"Stripe-Signature": {"t=1700000000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd"},
		"X-Forwarded-For":  {"203.0.113.7", "10.0.0.1"},
		"X-Note":           {"héllo ☃", ""},
	}
	// As received: repeated names, escapes in either case, a bare name,
	// an empty pair, a ';' and non-UTF-8 escapes are kept byte for byte.
	full.RawQuery = "bodySHA256=5d1c&To=%2b1555&To=%2B1555&flag&&a=b;c=%ff%FE"
	full.OccurredAt = time.Date(2026, time.March, 3, 10, 29, 59, 999999999, paris)
	full.ReceivedAt = baseTime.In(paris)

	bare := newEvent("github", "evt_bare")
	bare.IDOrigin = store.IDFromHash
	bare.Type = ""
	bare.ContentType = ""
	bare.Headers = nil
	bare.SignatureSlot = store.NoSlot
	bare.OccurredAt = time.Time{}

	binary := newEvent("shop", "evt_binary")
	binary.Body = []byte{0x00, 0xff, 0xfe, 'a', 0x00, 0xc3, 0x28, 0x80, 0x00}
	binary.ContentType = "application/octet-stream"

	empty := newEvent("shop", "evt_empty")
	empty.Body = []byte{}

	nilBody := newEvent("shop", "evt_nil_body")
	nilBody.Body = nil

	large := newEvent("acme", "evt_large")
	large.Body = randomBytes(1<<20, 1)

	cases := []struct {
		name string
		e    store.Event
		want store.Event
	}{
		{"every field set", full, full},
		{"no occurred_at, type, headers or slot", bare, bare},
		{"non-UTF-8 and NUL bytes", binary, binary},
		{"empty body", empty, empty},
		{"nil body reads back empty", nilBody, withBody(nilBody, []byte{})},
		{"1 MiB body", large, large},
	}
	items := make([]store.IngestItem, len(cases))
	for i, c := range cases {
		items[i] = item(c.e)
	}
	checkInserted(t, ingest(t, s, items...), true, true, true, true, true, true)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := getEvent(t, s, c.e.ID)
			checkEvent(t, got, c.want)
			checkRawQuery(t, "GetEvent", got, c.want.RawQuery)
			byProvider, err := s.EventByProviderID(context.Background(), c.e.Source, c.e.ProviderEventID)
			if err != nil {
				t.Fatalf("EventByProviderID: %v", err)
			}
			checkRawQuery(t, "EventByProviderID", byProvider, c.want.RawQuery)
		})
	}
}

func withBody(e store.Event, body []byte) store.Event {
	e.Body = body
	return e
}

func testIngestEmptyBatch(t *testing.T, s store.DB) {
	got, err := s.Ingest(context.Background(), nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("Ingest(nil) = %v, %v; want no results and no error", got, err)
	}
}

func testIngestLargeBatch(t *testing.T, s store.DB) {
	const n = 500
	items := make([]store.IngestItem, n)
	for i := range items {
		items[i] = item(newEvent("stripe", fmt.Sprintf("evt_%04d", i)), "billing")
	}
	for i, o := range ingest(t, s, items...) {
		if o != store.IngestStored {
			t.Fatalf("item %d of %d not inserted", i, n)
		}
	}
	for _, it := range items {
		checkEvent(t, getEvent(t, s, it.Event.ID), it.Event)
	}
	for _, it := range items[:10] {
		if ds := deliveries(t, s, it.Event.ID); len(ds) != 1 {
			t.Errorf("event %s has %d deliveries, want 1", it.Event.ID, len(ds))
		}
	}

	again := make([]store.IngestItem, n)
	for i, it := range items {
		again[i] = item(newEvent(it.Event.Source, it.Event.ProviderEventID), "billing")
	}
	for i, o := range ingest(t, s, again...) {
		if o != store.IngestDuplicate {
			t.Fatalf("item %d re-ingested: %v, want a duplicate", i, o)
		}
	}
}

func testGetEventUnknown(t *testing.T, s store.DB) {
	checkNoEvent(t, s, "evt_unknown")
	e := newEvent("stripe", "evt_1")
	ingest(t, s, item(e))
	checkNoEvent(t, s, e.ProviderEventID) // the provider's id is not ours
}

func testEventByProviderID(t *testing.T, s store.DB) {
	ctx := context.Background()
	a := newEvent("stripe", "evt_1")
	b := newEvent("github", "evt_1")
	ingest(t, s, item(a), item(b))
	got, err := s.EventByProviderID(ctx, "github", "evt_1")
	if err != nil {
		t.Fatalf("EventByProviderID: %v", err)
	}
	checkEvent(t, got, b)
	if _, err := s.EventByProviderID(ctx, "shop", "evt_1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("EventByProviderID of an unknown event: %v, want ErrNotFound", err)
	}
}

func testCountEvents(t *testing.T, s store.DB) {
	ctx := context.Background()
	ingest(t, s, item(newEvent("stripe", "evt_1")), item(newEvent("stripe", "evt_2")), item(newEvent("github", "d_1")))
	for source, want := range map[string]int64{"": 3, "stripe": 2, "github": 1, "shop": 0} {
		n, err := s.CountEvents(ctx, source)
		if err != nil {
			t.Fatalf("CountEvents(%q): %v", source, err)
		}
		if n != want {
			t.Errorf("CountEvents(%q) = %d, want %d", source, n, want)
		}
	}
}
