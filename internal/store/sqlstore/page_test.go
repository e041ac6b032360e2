package sqlstore

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestNewPage(t *testing.T) {
	t.Parallel()
	const listEvents = "SELECT x FROM hookrelay.events e WHERE %[1]s ORDER BY e.id DESC LIMIT %[2]s"
	for _, tc := range []struct {
		name    string
		dialect Dialect
		req     store.ListRequest
		want    Page
	}{
		{"default limit", dollarDialect, store.ListRequest{},
			Page{DefaultListLimit, "SELECT x FROM hookrelay.events e WHERE true ORDER BY e.id DESC LIMIT $1", []any{DefaultListLimit + 1}}},
		{"cursor after the filter", dollarDialect, store.ListRequest{Filter: store.EventFilter{Source: "stripe"}, Cursor: "c", Limit: 2},
			Page{2, "SELECT x FROM hookrelay.events e WHERE e.source = $1\n\tAND e.id < $2 ORDER BY e.id DESC LIMIT $3", []any{"stripe", "c", 3}}},
		{"? placeholders", questionDialect, store.ListRequest{Cursor: "c", Limit: 1},
			Page{1, "SELECT x FROM hookrelay.events e WHERE e.id < ? ORDER BY e.id DESC LIMIT ?", []any{"c", 2}}},
	} {
		got, err := NewPage(tc.dialect, listEvents, tc.req)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: NewPage = %#v, %v; want %#v", tc.name, got, err, tc.want)
		}
	}
	if _, err := NewPage(dollarDialect, listEvents, store.ListRequest{Filter: store.EventFilter{Status: "lost"}}); !errors.Is(err, store.ErrBadFilter) {
		t.Errorf("NewPage of a bad status: error = %v, want ErrBadFilter", err)
	}
}

func TestPageCut(t *testing.T) {
	t.Parallel()
	events := func(ids ...string) []store.EventSummary {
		es := make([]store.EventSummary, len(ids))
		for i, id := range ids {
			es[i].Event.ID = id
		}
		return es
	}
	ids := func(es []store.EventSummary) []string {
		out := []string{}
		for _, e := range es {
			out = append(out, e.Event.ID)
		}
		return out
	}
	p := Page{Limit: 2}
	for _, tc := range []struct {
		read, page []string
		next       string
	}{
		{nil, []string{}, ""},
		{[]string{"c", "b"}, []string{"c", "b"}, ""},
		{[]string{"c", "b", "a"}, []string{"c", "b"}, "b"},
	} {
		page, next := p.Cut(events(tc.read...))
		if !slices.Equal(ids(page), tc.page) || next != tc.next {
			t.Errorf("Cut(%v) = %v, %q; want %v, %q", tc.read, ids(page), next, tc.page, tc.next)
		}
	}
	if got := (Page{Limit: 10}).Room(); got != 11 {
		t.Errorf("Room of 10 = %d, want 11", got)
	}
	if got := (Page{Limit: 1 << 30}).Room(); got != maxPrealloc {
		t.Errorf("Room of 1<<30 = %d, want %d", got, maxPrealloc)
	}
}

func TestAttachStates(t *testing.T) {
	t.Parallel()
	events := make([]store.EventSummary, 2)
	events[0].Event.ID, events[1].Event.ID = "b", "a"
	ids, add := AttachStates(events)
	if !slices.Equal(ids, []string{"b", "a"}) {
		t.Errorf("ids = %v, want [b a]", ids)
	}
	add("a", store.DeliveryState{ID: 1, Destination: "billing"})
	add("a", store.DeliveryState{ID: 2, Destination: "crm"})
	add("b", store.DeliveryState{ID: 3, Destination: "billing"})
	want := [][]int64{{3}, {1, 2}}
	for i, e := range events {
		var got []int64
		for _, st := range e.Deliveries {
			got = append(got, st.ID)
		}
		if !slices.Equal(got, want[i]) {
			t.Errorf("event %s: states %v, want %v", e.Event.ID, got, want[i])
		}
	}
}
