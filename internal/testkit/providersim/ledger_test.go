package providersim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlite"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// ledgerStore returns a migrated SQLite store holding, under source
// "stripe", one event per entry of stored: provider id → hookrelay id.
func ledgerStore(t *testing.T, stored map[string]string, body func(pid string) []byte) store.DB {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, strings.TrimPrefix(testdb.SQLiteURL(t), "sqlite:"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	var items []store.IngestItem
	for pid, id := range stored {
		items = append(items, store.IngestItem{Event: store.Event{
			ID: id, Source: "stripe", ProviderEventID: pid, IDOrigin: store.IDFromBody, Type: EventType,
			Body: body(pid), Headers: map[string][]string{}, ReceivedAt: now,
		}, Deliveries: []store.NewDelivery{{Destination: "sink"}}})
	}
	if _, err := st.Ingest(ctx, items); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestLedger(t *testing.T) {
	t.Parallel()
	bodyOf := func(pid string) []byte { return []byte(`{"id":"` + pid + `"}`) }
	rep := Report{Events: []Event{
		{ID: "evt_1", Body: bodyOf("evt_1"), Acked: true},
		{ID: "evt_2", Body: bodyOf("evt_2"), Acked: true},
		{ID: "evt_3", Body: bodyOf("evt_3"), Acked: false}, // given up, yet stored
		{ID: "evt_4", Body: bodyOf("evt_4"), Acked: false}, // given up, not stored
		{ID: "evt_5", Body: bodyOf("evt_5"), Acked: true},  // acknowledged, not stored
	}}
	st := ledgerStore(t, map[string]string{"evt_1": "01A", "evt_2": "01B", "evt_3": "01C"}, bodyOf)
	ctx := context.Background()

	l, err := CheckStored(ctx, st, "stripe", rep, 0)
	if err != nil {
		t.Fatal(err)
	}
	if l.Sent != 5 || l.Acked != 3 || l.Stored != 3 || l.Lost != 1 || len(l.Problems) != 1 || !strings.Contains(l.Problems[0], "evt_5") {
		t.Fatalf("after CheckStored: %+v", l)
	}

	dest, err := NewDestination(DestinationOptions{Secret: destSecret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dest.Close)
	for _, id := range []string{"01A", "01A", "01A", "01B"} {
		if code, err := push(t, dest.URL(), destSecret, id, []byte(`{}`)); err != nil || code != 200 {
			t.Fatalf("push %s: %d %v", id, code, err)
		}
	}
	if n := l.Undelivered(dest); n != 1 {
		t.Errorf("Undelivered = %d, want 1 (01C)", n)
	}
	l.CheckDelivered(dest)
	want := Figures{Sent: 5, Acked: 3, Stored: 3, Delivered: 2, Duplicates: 2, Lost: 2}
	if l.Figures != want {
		t.Errorf("figures %v, want %v", l.Figures, want)
	}
	if len(l.Problems) != 2 || !strings.Contains(l.Problems[1], "01C") {
		t.Errorf("problems %q, want evt_5 not stored and 01C not delivered", l.Problems)
	}
	if got := want.String(); got != "sent=5 acknowledged=3 stored=3 delivered=2 duplicates=2 lost=2" {
		t.Errorf("String() = %q", got)
	}

	// A baseline that does not add up means rows the run cannot account
	// for.
	l, err = CheckStored(ctx, st, "stripe", rep, 1)
	if err != nil {
		t.Fatal(err)
	}
	if last := l.Problems[len(l.Problems)-1]; !strings.Contains(last, "more than once") {
		t.Errorf("with a wrong baseline, problems %q", l.Problems)
	}
}

func TestLedgerWaitDrained(t *testing.T) {
	t.Parallel()
	bodyOf := func(pid string) []byte { return []byte(`{"id":"` + pid + `"}`) }
	st := ledgerStore(t, map[string]string{"evt_1": "01A"}, bodyOf)
	rep := Report{Events: []Event{{ID: "evt_1", Body: bodyOf("evt_1"), Acked: true}}}
	ctx := context.Background()
	l, err := CheckStored(ctx, st, "stripe", rep, 0)
	if err != nil {
		t.Fatal(err)
	}
	dest, err := NewDestination(DestinationOptions{Secret: destSecret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dest.Close)

	// The delivery is pending and nothing delivers it: the wait ends with
	// its context and reports it live.
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	ds, err := l.WaitDrained(wctx, st, "sink", dest)
	if err != nil {
		t.Fatal(err)
	}
	if Live(ds) != 1 {
		t.Errorf("live deliveries %d, want 1: %v", Live(ds), ds.Counts)
	}
}
