package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

// testListNewestFirst lists events newest first with every field but the
// body and headers, the body's size, and the deliveries' states ordered
// by destination.
func testListNewestFirst(t *testing.T, s store.DB) {
	var events []store.Event
	for i := range 5 {
		e := eventAt("stripe", fmt.Sprintf("evt_list_%d", i), baseTime.Add(time.Duration(i)*time.Millisecond))
		e.Body = randomBytes(100+i, uint64(i))
		dests := []string{"billing", "audit"}
		if i == 2 {
			dests = nil
		}
		ingest(t, s, item(e, dests...))
		events = append(events, e)
	}
	page, next := listPage(t, s, store.ListRequest{})
	if next != "" {
		t.Errorf("NextCursor = %q on the only page, want empty", next)
	}
	checkIDs(t, "listed", idsOfSummaries(page), idsOf(events...))
	for i, es := range page {
		want := events[len(events)-1-i]
		got := es.Event
		if got.Body != nil || got.Headers != nil {
			t.Errorf("event %s: listed with body %v and headers %v, want nil", got.ID, got.Body, got.Headers)
		}
		got.Body, got.Headers = want.Body, want.Headers
		checkEvent(t, got, want)
		if es.BodySize != int64(len(want.Body)) {
			t.Errorf("event %s: BodySize = %d, want %d", got.ID, es.BodySize, len(want.Body))
		}
		wantDests := []string{"audit", "billing"}
		if want.ProviderEventID == "evt_list_2" {
			wantDests = []string{}
		}
		gotDests := []string{}
		for _, d := range es.Deliveries {
			gotDests = append(gotDests, d.Destination)
			if d.Status != store.StatusPending || d.Attempts != 0 || d.ID == 0 {
				t.Errorf("event %s: delivery %+v, want a pending one with an id and no attempt", got.ID, d)
			}
		}
		if es.Deliveries == nil || !slices.Equal(gotDests, wantDests) {
			t.Errorf("event %s: deliveries to %v (nil %t), want %v", got.ID, gotDests, es.Deliveries == nil, wantDests)
		}
	}
}

// idsOfSummaries returns the ids of listed events, in order.
func idsOfSummaries(events []store.EventSummary) []string {
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.Event.ID
	}
	return ids
}

// testListPages walks pages: each continues below the last id of the
// previous one, and the last has an empty cursor, also when the events
// fill it exactly.
func testListPages(t *testing.T, s store.DB) {
	var events []store.Event
	for i := range 7 {
		e := eventAt("stripe", fmt.Sprintf("evt_page_%d", i), baseTime.Add(time.Duration(i)*time.Millisecond))
		ingest(t, s, item(e, "billing"))
		events = append(events, e)
	}
	all := idsOf(events...)
	for _, tc := range []struct {
		limit int
		pages [][]string
	}{
		{3, [][]string{all[0:3], all[3:6], all[6:7]}},
		{7, [][]string{all}},
		{1, [][]string{all[0:1], all[1:2], all[2:3], all[3:4], all[4:5], all[5:6], all[6:7]}},
		{100, [][]string{all}},
	} {
		cursor := ""
		for i, want := range tc.pages {
			page, next := listPage(t, s, store.ListRequest{Cursor: cursor, Limit: tc.limit})
			checkIDs(t, fmt.Sprintf("limit %d, page %d", tc.limit, i), idsOfSummaries(page), want)
			wantNext := ""
			if i < len(tc.pages)-1 {
				wantNext = want[len(want)-1]
			}
			if next != wantNext {
				t.Fatalf("limit %d, page %d: NextCursor = %q, want %q", tc.limit, i, next, wantNext)
			}
			cursor = next
		}
	}
	// A source's events page the same way.
	page, next := listPage(t, s, store.ListRequest{Filter: store.EventFilter{Source: "stripe"}, Limit: 4})
	checkIDs(t, "stripe, page 0", idsOfSummaries(page), all[0:4])
	page, next = listPage(t, s, store.ListRequest{Filter: store.EventFilter{Source: "stripe"}, Cursor: next, Limit: 4})
	checkIDs(t, "stripe, page 1", idsOfSummaries(page), all[4:7])
	if next != "" {
		t.Errorf("stripe, page 1: NextCursor = %q, want empty", next)
	}
}

// testListPagesUnderInserts pages through the events while new ones keep
// arriving: no event is listed twice, ids only go down, and every event
// stored before the first page is listed.
func testListPagesUnderInserts(t *testing.T, s store.DB) {
	const before = 60
	var old []store.Event
	for i := range before {
		e := eventAt("stripe", fmt.Sprintf("evt_old_%d", i), baseTime.Add(time.Duration(i)*time.Millisecond))
		old = append(old, e)
	}
	items := make([]store.IngestItem, len(old))
	for i, e := range old {
		items[i] = item(e, "billing")
	}
	ingest(t, s, items...)

	stop := make(chan struct{})
	var (
		wg       sync.WaitGroup
		inserted atomic.Int64
	)
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			e := eventAt("stripe", fmt.Sprintf("evt_new_%d", i), baseTime.Add(time.Hour+time.Duration(i)*time.Millisecond))
			if _, err := s.Ingest(context.Background(), []store.IngestItem{item(e, "billing")}); err != nil {
				t.Errorf("Ingest: %v", err)
				return
			}
			inserted.Add(1)
		}
	})
	var listed []string
	cursor := ""
	for {
		page, next := listPage(t, s, store.ListRequest{Filter: store.EventFilter{Source: "stripe"}, Cursor: cursor, Limit: 7})
		listed = append(listed, idsOfSummaries(page)...)
		if next == "" {
			break
		}
		cursor = next
		// An insert lands between this page and the next.
		n := inserted.Load()
		testkit.Eventually(t, 10*time.Second, "an event inserted between two pages", func() error {
			return testkit.Check(inserted.Load() > n, "%d inserted", n)
		})
	}
	close(stop)
	wg.Wait()

	for i := 1; i < len(listed); i++ {
		if listed[i] >= listed[i-1] {
			t.Fatalf("listed %s after %s: ids must go strictly down", listed[i], listed[i-1])
		}
	}
	for _, e := range old {
		if !slices.Contains(listed, e.ID) {
			t.Errorf("event %s, stored before the first page, was not listed", e.ID)
		}
	}
}

// testListFilters selects by ids, source, destination and status, the
// last two on one delivery.
func testListFilters(t *testing.T, s store.DB) {
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Millisecond) }
	a := eventAt("stripe", "evt_a", at(0)) // billing done, audit pending
	b := eventAt("stripe", "evt_b", at(1)) // billing dead
	c := eventAt("github", "evt_c", at(2)) // audit failed
	d := eventAt("github", "evt_d", at(3)) // none
	e := eventAt("stripe", "evt_e", at(4)) // billing processing
	ingest(t, s, item(a, "billing", "audit"), item(b, "billing"), item(c, "audit"), item(d), item(e, "billing"))
	now := at(10)
	settle(t, s, "billing", now, map[string]store.DeliveryStatus{a.ID: store.StatusDone, b.ID: store.StatusDead, e.ID: store.StatusProcessing})
	settle(t, s, "audit", now, map[string]store.DeliveryStatus{c.ID: store.StatusFailed})

	for _, tc := range []struct {
		name   string
		filter store.EventFilter
		want   []store.Event
	}{
		{"none", store.EventFilter{}, []store.Event{a, b, c, d, e}},
		{"ids", store.EventFilter{IDs: []string{a.ID, d.ID, "01ARZ3NDEKTSV4RRFFQ69G5FAV"}}, []store.Event{a, d}},
		{"source", store.EventFilter{Source: "github"}, []store.Event{c, d}},
		{"unknown source", store.EventFilter{Source: "shop"}, nil},
		{"destination", store.EventFilter{Destination: "audit"}, []store.Event{a, c}},
		{"status", store.EventFilter{Status: store.StatusPending}, []store.Event{a}},
		{"status dead", store.EventFilter{Status: store.StatusDead}, []store.Event{b}},
		{"status processing", store.EventFilter{Status: store.StatusProcessing}, []store.Event{e}},
		{"destination and status on one delivery", store.EventFilter{Destination: "billing", Status: store.StatusPending}, nil},
		{"destination and status", store.EventFilter{Destination: "audit", Status: store.StatusFailed}, []store.Event{c}},
		{"source and destination", store.EventFilter{Source: "stripe", Destination: "billing"}, []store.Event{a, b, e}},
		{"ids and source", store.EventFilter{IDs: []string{a.ID, c.ID}, Source: "github"}, []store.Event{c}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkIDs(t, "listed", listIDs(t, s, tc.filter), idsOf(tc.want...))
		})
	}
}

// testListTypeGlob matches types with '*' and '?' only: '%', '_' and '\'
// match themselves, case matters, and a character class is
// ErrBadFilter.
func testListTypeGlob(t *testing.T, s store.DB) {
	types := []string{"invoice.paid", "invoice.paid.v2", "Invoice.paid", "a%b", "axb", "a_b", `a\b`, "ab", "a.b", "ünïcode"}
	byType := map[string]string{}
	for i, typ := range types {
		e := eventAt("stripe", fmt.Sprintf("evt_type_%d", i), baseTime.Add(time.Duration(i)*time.Millisecond))
		e.Type = typ
		ingest(t, s, item(e))
		byType[typ] = e.ID
	}
	for _, tc := range []struct {
		glob string
		want []string
	}{
		{"invoice.*", []string{"invoice.paid", "invoice.paid.v2"}},
		{"invoice.pai?", []string{"invoice.paid"}},
		{"invoice.paid", []string{"invoice.paid"}},
		{"*paid", []string{"invoice.paid", "Invoice.paid"}},
		{"a%b", []string{"a%b"}},
		{"a_b", []string{"a_b"}},
		{`a\b`, []string{`a\b`}},
		{"a?b", []string{"a%b", "axb", "a_b", `a\b`, "a.b"}},
		{"a*b", []string{"a%b", "axb", "a_b", `a\b`, "ab", "a.b"}},
		{"%", nil},
		{"_", nil},
		{"?nïcode", []string{"ünïcode"}},
		{"*", types},
	} {
		t.Run(tc.glob, func(t *testing.T) {
			want := make([]string, len(tc.want))
			for i, typ := range tc.want {
				want[i] = byType[typ]
			}
			slices.Sort(want)
			slices.Reverse(want)
			checkIDs(t, "listed", listIDs(t, s, store.EventFilter{Type: tc.glob}), want)
		})
	}
}

// testListBadFilter refuses a character class and an unknown status.
func testListBadFilter(t *testing.T, s store.DB) {
	ingest(t, s, item(eventAt("stripe", "evt_bad", baseTime), "billing"))
	for _, f := range []store.EventFilter{
		{Type: "invoice.[a-z]*"},
		{Type: "a]"},
		{Status: "finished"},
	} {
		if _, _, err := s.ListEvents(context.Background(), store.ListRequest{Filter: f}); !errors.Is(err, store.ErrBadFilter) {
			t.Errorf("ListEvents(%+v) error = %v, want ErrBadFilter", f, err)
		}
		if _, err := s.Replay(context.Background(), store.ReplayRequest{Filter: f, DryRun: true, Now: baseTime}); !errors.Is(err, store.ErrBadFilter) {
			t.Errorf("Replay(%+v) error = %v, want ErrBadFilter", f, err)
		}
	}
}

// testListStatusPages lists the events by each status, alone and with a
// destination, a source, a type glob and a window, in pages of 1 and of
// 1 000, and checks each list against the events whose listed deliveries
// say so: an event with two deliveries in the status is listed once,
// newest first, whatever the page size. The statuses few deliveries are
// in are read from those deliveries, the others from the events.
func testListStatusPages(t *testing.T, s store.DB) {
	at := func(i int) time.Time { return baseTime.Add(time.Duration(i) * time.Millisecond) }
	var ev []store.Event
	for i := range 10 {
		source := "stripe"
		if i%3 == 2 {
			source = "github"
		}
		ev = append(ev, eventAt(source, fmt.Sprintf("evt_status_%d", i), at(i)))
		ingest(t, s, item(ev[i], "billing", "audit"))
	}
	now := at(100)
	pending, processing, failed, done := store.StatusPending, store.StatusProcessing, store.StatusFailed, store.StatusDone
	skipped, dead := store.StatusSkipped, store.StatusDead
	billing := []store.DeliveryStatus{failed, dead, done, skipped, processing, failed, pending, dead, failed, done}
	audit := []store.DeliveryStatus{failed, done, failed, pending, processing, dead, skipped, dead, done, pending}
	for dest, statuses := range map[string][]store.DeliveryStatus{"billing": billing, "audit": audit} {
		want := map[string]store.DeliveryStatus{}
		for i, st := range statuses {
			if st != pending {
				want[ev[i].ID] = st
			}
		}
		settle(t, s, dest, now, want)
	}
	purge(t, s, "ops", "erasure request", now, ev[9].ID) // its pending audit delivery: purged

	all, _ := listPage(t, s, store.ListRequest{Limit: 1000})
	for _, status := range store.Statuses {
		for _, f := range []store.EventFilter{
			{Status: status},
			{Status: status, Destination: "audit"},
			{Status: status, Source: "github"},
			{Status: status, Type: "invoice.*"},
			{Status: status, Since: stored(at(2)), Until: stored(at(8))},
		} {
			var want []string
			for _, e := range all {
				if matchesStatus(e, f) {
					want = append(want, e.Event.ID)
				}
			}
			checkIDs(t, fmt.Sprintf("%+v, pages of 1000", f), listIDs(t, s, f), want)
			var paged []string
			cursor := ""
			for range len(all) + 1 {
				events, next := listPage(t, s, store.ListRequest{Filter: f, Cursor: cursor, Limit: 1})
				for _, e := range events {
					paged = append(paged, e.Event.ID)
				}
				if cursor = next; next == "" {
					break
				}
			}
			checkIDs(t, fmt.Sprintf("%+v, pages of 1", f), paged, want)
		}
	}
}

// matchesStatus tells whether a listed event matches f's status, and its
// destination, source, type glob ("invoice.*") and window when set.
func matchesStatus(e store.EventSummary, f store.EventFilter) bool {
	switch {
	case f.Source != "" && e.Event.Source != f.Source,
		f.Type != "" && !strings.HasPrefix(e.Event.Type, strings.TrimSuffix(f.Type, "*")),
		!f.Since.IsZero() && e.Event.ReceivedAt.Before(f.Since),
		!f.Until.IsZero() && !e.Event.ReceivedAt.Before(f.Until):
		return false
	}
	for _, d := range e.Deliveries {
		if d.Status == f.Status && (f.Destination == "" || d.Destination == f.Destination) {
			return true
		}
	}
	return false
}
