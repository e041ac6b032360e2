package sqlstore

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Dialects shaped like the drivers'.
var (
	questionDialect = Dialect{
		Placeholder: Question,
		Pattern:     GlobPattern,
		TypeMatch:   "e.type GLOB %s",
		InIDs: func(w *Where, columns, ids []string) {
			w.Add(columns[0]+" IN (SELECT value FROM json_each(%s))", ids)
		},
		Time: func(t time.Time) any { return t.UnixMicro() },
	}
	dollarDialect = Dialect{
		Placeholder: Dollar,
		Pattern:     LikePattern,
		TypeMatch:   `e.type LIKE %s ESCAPE '\'`,
		InIDs: func(w *Where, columns, ids []string) {
			for _, c := range columns {
				w.Add(c+" = ANY(%s::text[])", ids)
			}
		},
		Time: func(t time.Time) any { return t },
	}
)

func TestWhere(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, time.March, 3, 9, 30, 15, 123_000_000, time.UTC)
	until := since.Add(time.Millisecond)
	const fromID, beforeID = "01KJSGHA6K0000000000000000", "01KJSGHA6M0000000000000000"
	ids := []string{"a", "b"}
	for _, tc := range []struct {
		name       string
		dialect    Dialect
		leading    []any
		deliveries bool // FilterDeliveries, else FilterEvents
		filter     store.EventFilter
		sql        string
		args       []any
	}{
		{"no filter", questionDialect, nil, false, store.EventFilter{}, "true", nil},
		{"no filter after leading args", dollarDialect, []any{"now"}, true, store.EventFilter{}, "true", []any{"now"}},
		{
			"events, ?", questionDialect, nil, false,
			store.EventFilter{IDs: ids, Source: "stripe", Type: "invoice.*", Destination: "billing", Status: store.StatusDead, Since: since, Until: until},
			"e.id IN (SELECT value FROM json_each(?))\n\tAND e.source = ?\n\tAND e.type GLOB ?" +
				"\n\tAND e.received_at >= ?\n\tAND e.id >= ?\n\tAND e.received_at < ?\n\tAND e.id < ?" +
				"\n\tAND e.id IN (SELECT d.event_id FROM hookrelay.deliveries d WHERE d.status = 'dead' AND d.destination = ?)",
			[]any{ids, "stripe", "invoice.*", since.UnixMicro(), fromID, until.UnixMicro(), beforeID, "billing"},
		},
		{
			"events, $n, exact type, status only", dollarDialect, nil, false,
			store.EventFilter{Type: "invoice.paid", Status: store.StatusPending},
			"e.type = $1\n\tAND EXISTS (SELECT 1 FROM hookrelay.deliveries d WHERE d.event_id = e.id AND d.status = 'pending')",
			[]any{"invoice.paid"},
		},
		{
			"deliveries, $n after leading args", dollarDialect, []any{"now", "actor"}, true,
			store.EventFilter{IDs: ids, Type: "invoice.*", Destination: "billing", Status: store.StatusDead, Since: since},
			"e.id = ANY($3::text[])\n\tAND d.event_id = ANY($4::text[])\n\tAND e.type LIKE $5 ESCAPE '\\'" +
				"\n\tAND e.received_at >= $6\n\tAND e.id >= $7\n\tAND d.event_id >= $8" +
				"\n\tAND d.destination = $9\n\tAND d.status = 'dead'",
			[]any{"now", "actor", ids, ids, "invoice.%", since, fromID, fromID, "billing"},
		},
		{
			"deliveries, ?", questionDialect, nil, true,
			store.EventFilter{IDs: ids, Until: until, Destination: "billing"},
			"e.id IN (SELECT value FROM json_each(?))\n\tAND e.received_at < ?\n\tAND e.id < ?\n\tAND d.event_id < ?\n\tAND d.destination = ?",
			[]any{ids, until.UnixMicro(), beforeID, beforeID, "billing"},
		},
		{
			"window before the epoch", dollarDialect, nil, false,
			store.EventFilter{Since: time.Unix(-1, 0)},
			"e.received_at >= $1",
			[]any{time.Unix(-1, 0)},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := NewWhere(tc.dialect, tc.leading...)
			filter := w.FilterEvents
			if tc.deliveries {
				filter = w.FilterDeliveries
			}
			if err := filter(tc.filter); err != nil {
				t.Fatalf("filter: %v", err)
			}
			if got := w.SQL(); got != tc.sql {
				t.Errorf("SQL =\n%s\nwant\n%s", got, tc.sql)
			}
			if got := w.Args(); !reflect.DeepEqual(got, tc.args) {
				t.Errorf("Args = %#v, want %#v", got, tc.args)
			}
		})
	}
}

func TestWhereBadFilter(t *testing.T) {
	t.Parallel()
	for _, f := range []store.EventFilter{{Status: "lost"}, {Type: "invoice.[ab]"}} {
		for _, d := range []Dialect{questionDialect, dollarDialect} {
			w := NewWhere(d)
			if err := w.FilterEvents(f); !errors.Is(err, store.ErrBadFilter) {
				t.Errorf("FilterEvents(%+v) = %v, want ErrBadFilter", f, err)
			}
			if err := w.FilterDeliveries(f); !errors.Is(err, store.ErrBadFilter) {
				t.Errorf("FilterDeliveries(%+v) = %v, want ErrBadFilter", f, err)
			}
		}
	}
}
