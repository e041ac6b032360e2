package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// search calls SearchEvents and fails the test on error.
func search(t *testing.T, s store.DB, req store.SearchRequest) store.SearchPage {
	t.Helper()
	p, err := s.SearchEvents(context.Background(), req)
	if err != nil {
		t.Fatalf("SearchEvents(%+v): %v", req, err)
	}
	if p.Events == nil {
		t.Fatalf("SearchEvents(%+v) listed nil, want a non-nil slice", req)
	}
	return p
}

// searchAll walks every page of req and returns the ids found, in order.
func searchAll(t *testing.T, s store.DB, req store.SearchRequest) []string {
	t.Helper()
	var ids []string
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatalf("SearchEvents(%+v) does not end", req)
		}
		p := search(t, s, req)
		ids = append(ids, idsOfSummaries(p.Events)...)
		if p.NextCursor == "" {
			return ids
		}
		req.Cursor = p.NextCursor
	}
}

// testSearchIDPrefix finds events by the start of their hookrelay id,
// whatever its case, or of their provider id, exactly, across sources or
// in one, with the filter applied, a page at a time, and with deliveries
// attached.
func testSearchIDPrefix(t *testing.T, s store.DB) {
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Second) }
	a := eventAt("stripe", "evt_1NabX", at(0))
	b := eventAt("stripe", "evt_1NacY", at(1))
	b.Type = "customer.created"
	c := eventAt("stripe", "evt_2Zzz", at(2))
	d := eventAt("github", "evt_1Nad", at(3)) // another source, the same prefix
	e := eventAt("github", "gh-9", at(4))
	ingest(t, s, item(a, "billing"), item(b), item(c), item(d), item(e))

	for _, tc := range []struct {
		name string
		req  store.SearchRequest
		want []string
	}{
		{"provider prefix", store.SearchRequest{IDPrefix: "evt_1N"}, idsOf(d, b, a)},
		{"whole provider id", store.SearchRequest{IDPrefix: "evt_2Zzz"}, idsOf(c)},
		{"provider ids are exact", store.SearchRequest{IDPrefix: "EVT_1N"}, nil},
		{"one source", store.SearchRequest{IDPrefix: "evt_1N", Filter: store.EventFilter{Source: "stripe"}}, idsOf(b, a)},
		{"with the filter", store.SearchRequest{IDPrefix: "evt_", Filter: store.EventFilter{Type: "customer.*"}}, idsOf(b)},
		{"hookrelay id", store.SearchRequest{IDPrefix: e.ID[:20]}, idsOf(e)},
		{"hookrelay id in lower case", store.SearchRequest{IDPrefix: strings.ToLower(c.ID[:20])}, idsOf(c)},
		{"whole hookrelay id", store.SearchRequest{IDPrefix: a.ID}, idsOf(a)},
		{"a page at a time", store.SearchRequest{IDPrefix: "evt_", Limit: 1}, idsOf(d, c, b, a)},
		{"among ids", store.SearchRequest{IDPrefix: "evt_1", Filter: store.EventFilter{IDs: idsOf(a, c, e)}}, idsOf(a)},
		{"nothing", store.SearchRequest{IDPrefix: "nothing"}, nil},
	} {
		got := searchAll(t, s, tc.req)
		checkIDs(t, tc.name, got, tc.want)
	}
	p := search(t, s, store.SearchRequest{IDPrefix: a.ID})
	if len(p.Events) != 1 || len(p.Events[0].Deliveries) != 1 || p.Events[0].Deliveries[0].Destination != "billing" {
		t.Errorf("found %+v, want %s with its delivery to billing", p.Events, a.ID)
	}
	if p.Scanned != 0 || p.Exhausted {
		t.Errorf("a search by id reports a scan: %+v", p)
	}
	_, err := s.SearchEvents(context.Background(), store.SearchRequest{IDPrefix: "evt_", Text: []byte("x")})
	if !errors.Is(err, store.ErrBadFilter) {
		t.Errorf("a search by id and text: error %v, want ErrBadFilter", err)
	}
}

// testSearchManyProviderIDs finds the events of a prefix that more
// provider ids start with than are looked up by index, newest first.
func testSearchManyProviderIDs(t *testing.T, s store.DB) {
	n := store.MaxIDPrefixMatches + 2
	items := make([]store.IngestItem, n)
	var events []store.Event
	for i := range items {
		e := eventAt("stripe", fmt.Sprintf("bulk_%05d", i), baseTime.Add(time.Duration(i)*time.Millisecond))
		items[i] = item(e)
		events = append(events, e)
	}
	ingest(t, s, items...)
	ingest(t, s, item(eventAt("stripe", "other", baseTime.Add(time.Hour))))
	p := search(t, s, store.SearchRequest{IDPrefix: "bulk_", Limit: 3})
	want := idsOf(events[n-1], events[n-2], events[n-3])
	checkIDs(t, "first page", idsOfSummaries(p.Events), want)
	if p.NextCursor != want[2] {
		t.Errorf("next cursor %q, want %q", p.NextCursor, want[2])
	}
	p = search(t, s, store.SearchRequest{IDPrefix: "bulk_0000", Limit: 20})
	checkIDs(t, "narrower prefix", idsOfSummaries(p.Events), idsOf(events[9], events[8], events[7], events[6], events[5],
		events[4], events[3], events[2], events[1], events[0]))
}

// storesSealed reports whether s seals what it writes, from the key
// counts of what it has stored.
func storesSealed(t *testing.T, s store.DB) bool {
	t.Helper()
	return keyCounts(t, s).Events[""] == 0
}

// testSearchText finds events whose body holds bytes, exactly, reading at
// most ScanLimit events a page and telling how far it read; a store that
// seals its payloads refuses.
func testSearchText(t *testing.T, s store.DB) {
	ctx := context.Background()
	var events []store.Event // oldest first
	for i := range 10 {
		e := eventAt("stripe", fmt.Sprintf("evt_text_%d", i), baseTime.Add(time.Duration(i)*time.Second))
		e.Body = fmt.Appendf(nil, "{\"id\":\"evt_text_%d\",\"customer\":\"cus_%d\",\"bin\":\"\x00\xff\"}", i, i%3)
		events = append(events, e)
		ingest(t, s, item(e, "billing"))
	}
	if storesSealed(t, s) {
		_, err := s.SearchEvents(ctx, store.SearchRequest{Text: []byte("cus_1")})
		if !errors.Is(err, store.ErrSealedSearch) {
			t.Errorf("a text search of sealed payloads: error %v, want ErrSealedSearch", err)
		}
		return
	}
	newest := func(is ...int) []string {
		var ids []string
		for _, i := range is {
			ids = append(ids, events[i].ID)
		}
		return ids
	}
	for _, tc := range []struct {
		name string
		req  store.SearchRequest
		want []string
	}{
		{"a value", store.SearchRequest{Text: []byte(`"cus_1"`)}, newest(7, 4, 1)},
		{"exact case", store.SearchRequest{Text: []byte("CUS_1")}, nil},
		{"bytes", store.SearchRequest{Text: []byte("\x00\xff")}, newest(9, 8, 7, 6, 5, 4, 3, 2, 1, 0)},
		{"with the filter", store.SearchRequest{Text: []byte("cus_1"), Filter: store.EventFilter{Since: events[3].ReceivedAt, Until: events[7].ReceivedAt}}, newest(4)},
		{"a page at a time", store.SearchRequest{Text: []byte("cus_2"), Limit: 1}, newest(8, 5, 2)},
		{"a few at a time", store.SearchRequest{Text: []byte("cus_2"), ScanLimit: 2}, newest(8, 5, 2)},
	} {
		checkIDs(t, tc.name, searchAll(t, s, tc.req), tc.want)
	}

	// Reading 4 events a page: 9..6 holds 7, 5..2 holds 4, 1..0 holds 1.
	req := store.SearchRequest{Text: []byte("cus_1"), ScanLimit: 4}
	for i, want := range []struct {
		found   []string
		scanned int64
		oldest  int
		last    bool
	}{{newest(7), 4, 6, false}, {newest(4), 4, 2, false}, {newest(1), 2, 0, true}} {
		p := search(t, s, req)
		checkIDs(t, fmt.Sprintf("page %d", i+1), idsOfSummaries(p.Events), want.found)
		if p.Scanned != want.scanned || p.Exhausted != want.last || p.Sealed != 0 || (p.NextCursor == "") != want.last {
			t.Errorf("page %d: read %d, exhausted %t, sealed %d, next %q; want %d read, exhausted %t", i+1,
				p.Scanned, p.Exhausted, p.Sealed, p.NextCursor, want.scanned, want.last)
		}
		checkTime(t, fmt.Sprintf("page %d: oldest scanned", i+1), p.OldestScanned, events[want.oldest].ReceivedAt)
		if len(p.Events) == 1 && len(p.Events[0].Deliveries) != 1 {
			t.Errorf("page %d: found %+v without its delivery", i+1, p.Events[0])
		}
		req.Cursor = p.NextCursor
	}

	// A full page stops reading at its last event.
	p := search(t, s, store.SearchRequest{Text: []byte("cus_0"), Limit: 2})
	checkIDs(t, "full page", idsOfSummaries(p.Events), newest(9, 6))
	if p.NextCursor != events[6].ID || p.Scanned != 4 || p.Exhausted {
		t.Errorf("full page: next %q, read %d, exhausted %t; want next %s, 4 read", p.NextCursor, p.Scanned, p.Exhausted, events[6].ID)
	}
}
