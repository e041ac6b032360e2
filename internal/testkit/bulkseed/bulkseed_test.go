package bulkseed_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit/bulkseed"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestSeed reads a seeded history back through the store, on each driver:
// the events with their bodies and ids of their receive time, newest
// first, their deliveries, and the counts the stats read.
func TestSeed(t *testing.T) {
	for _, d := range testdb.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			url := d.URL(t)
			st := migrated(t, url)
			first := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
			const n = 101
			seeded, err := bulkseed.Seed(ctx, url, bulkseed.Spec{N: n, First: first, Step: 1500 * time.Microsecond,
				Routes: []bulkseed.Route{{"a", "x.created", "one"}, {"b", "y", "two"}}})
			if err != nil {
				t.Fatal(err)
			}
			if seeded.NewestProviderID != "evt_000000100" {
				t.Errorf("newest provider id %q", seeded.NewestProviderID)
			}
			if i, err := bulkseed.Number(seeded.MidID); err != nil || i != n/2 {
				t.Errorf("middle id %s is event %d (%v), want %d", seeded.MidID, i, err, n/2)
			}

			ev, err := st.EventByProviderID(ctx, "a", "evt_000000100")
			if err != nil {
				t.Fatal(err)
			}
			at := first.Add(100 * 1500 * time.Microsecond)
			if !ev.ReceivedAt.Equal(at) || !ev.OccurredAt.Equal(at.Add(-time.Second)) || ev.Type != "x.created" {
				t.Errorf("event 100: received %v occurred %v type %q, want %v", ev.ReceivedAt, ev.OccurredAt, ev.Type, at)
			}
			if want := `{"id":"evt_000000100","type":"x.created","data":{"object":{"id":"obj_100","amount":100}}}`; string(ev.Body) != want {
				t.Errorf("body %s, want %s", ev.Body, want)
			}
			if id := ulid.MustParse(ev.ID); !ulid.Time(id.Time()).Equal(at.Truncate(time.Millisecond)) {
				t.Errorf("id %s is of %v, want %v", ev.ID, ulid.Time(id.Time()), at.Truncate(time.Millisecond))
			}

			page, _, err := st.ListEvents(ctx, store.ListRequest{Filter: store.EventFilter{Source: "b"}, Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if len(page) != 3 || page[0].Event.ProviderEventID != "evt_000000099" || page[1].Event.ProviderEventID != "evt_000000097" {
				t.Fatalf("newest of b: %+v", page)
			}
			if ds := page[0].Deliveries; len(ds) != 1 || ds[0].Destination != "two" || ds[0].Status != store.StatusPending {
				t.Errorf("deliveries of event 99: %+v", ds)
			}

			stats, err := st.Stats(ctx, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if stats.Sources["a"].Received != 51 || stats.Sources["b"].Received != 50 {
				t.Errorf("received per source: %+v", stats.Sources)
			}
			if p := stats.Destinations["one"].Counts[store.StatusPending]; p != 51 {
				t.Errorf("pending of one: %d, want 51", p)
			}
		})
	}
}

// TestSeedFailed leaves one route's deliveries dead after an attempt
// answered 503, counted as such, and the other's as they were.
func TestSeedFailed(t *testing.T) {
	for _, d := range testdb.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			url := d.URL(t)
			st := migrated(t, url)
			_, err := bulkseed.Seed(ctx, url, bulkseed.Spec{N: 10, First: time.Now().UTC().Add(-time.Hour), Step: time.Second,
				Routes: []bulkseed.Route{{Source: "a", Type: "x", Destination: "one"}, {Source: "b", Type: "y", Destination: "two"}},
				Failed: []bulkseed.Failed{{Source: "b", Type: "y", Status: "dead", StatusCode: 503, Error: "status 503"}}})
			if err != nil {
				t.Fatal(err)
			}
			stats, err := st.Stats(ctx, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if one, two := stats.Destinations["one"].Counts, stats.Destinations["two"].Counts; one[store.StatusPending] != 5 ||
				two[store.StatusDead] != 5 || two[store.StatusPending] != 0 {
				t.Errorf("counts: one %v, two %v; want one 5 pending, two 5 dead", one, two)
			}
			gs, err := st.Failures(ctx, store.FailuresRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(gs) != 1 || gs[0].Destination != "two" || gs[0].Count != 5 || gs[0].ExampleError != "status 503" || gs[0].ExampleStatusCode != 503 {
				t.Errorf("failures: %+v, want two's 5 dead with status 503", gs)
			}
		})
	}
}

// TestSeedPadsBodiesWithoutDeliveries seeds events whose route has no
// destination, with bodies padded past their JSON: every body has the
// size asked for and begins with its JSON, and no event has a delivery.
func TestSeedPadsBodiesWithoutDeliveries(t *testing.T) {
	for _, d := range testdb.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			url := d.URL(t)
			st := migrated(t, url)
			const n, size = 3, 4096
			if _, err := bulkseed.Seed(ctx, url, bulkseed.Spec{N: n, First: time.Now().Add(-time.Minute), Step: time.Millisecond,
				Routes: []bulkseed.Route{{Source: "big", Type: "z"}}, BodyBytes: size}); err != nil {
				t.Fatal(err)
			}
			page, _, err := st.ListEvents(ctx, store.ListRequest{Filter: store.EventFilter{Source: "big"}, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(page) != n {
				t.Fatalf("%d events listed, want %d", len(page), n)
			}
			for _, e := range page {
				if len(e.Deliveries) != 0 || e.BodySize != size {
					t.Errorf("event %s: %d deliveries, body of %d bytes; want none and %d", e.Event.ProviderEventID, len(e.Deliveries), e.BodySize, size)
				}
			}
			ev, err := st.EventByProviderID(ctx, "big", "evt_000000002")
			if err != nil {
				t.Fatal(err)
			}
			want := `{"id":"evt_000000002","type":"z","data":{"object":{"id":"obj_2","amount":2}}}`
			if len(ev.Body) != size || string(ev.Body[:len(want)]) != want || strings.TrimSpace(string(ev.Body)) != want {
				t.Errorf("body of %d bytes begins %.100q, want %q and spaces", len(ev.Body), ev.Body, want)
			}
		})
	}
}

// TestSeedLog seeds a log as the console's benchmark does: done
// deliveries with their attempts, some failed, dead and skipped, and a
// backlog of the newest, some of it processing. The store counts them
// all: by status, as failures, and per minute.
func TestSeedLog(t *testing.T) {
	for _, d := range testdb.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			ctx := context.Background()
			url := d.URL(t)
			st := migrated(t, url)
			first := time.Now().UTC().Add(-time.Hour).Truncate(time.Minute)
			_, err := bulkseed.Seed(ctx, url, bulkseed.Spec{N: 40, First: first, Step: 3 * time.Second, Done: true, Attempts: true,
				Pending: 6, Processing: 2,
				Routes: []bulkseed.Route{{"a", "ok", "one"}, {"a", "f503", "one"}, {"a", "dead", "one"}, {"a", "skip", "one"}},
				Failed: []bulkseed.Failed{
					{Source: "a", Type: "f503", Status: "failed", StatusCode: 503, Error: "status 503"},
					{Source: "a", Type: "dead", Status: "dead", Error: "timeout after 10s"},
					{Source: "a", Type: "skip", Status: "skipped", Error: "skipped by ops"},
				}})
			if err != nil {
				t.Fatal(err)
			}
			// Events 34–39 are the backlog, 34 and 35 processing; of the
			// 34 before, 9 ok, 9 failed, 8 dead, 8 skipped.
			stats, err := st.Stats(ctx, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			c := stats.Destinations["one"].Counts
			want := map[store.DeliveryStatus]int64{store.StatusDone: 9, store.StatusFailed: 9, store.StatusDead: 8,
				store.StatusSkipped: 8, store.StatusPending: 4, store.StatusProcessing: 2, store.StatusPurged: 0}
			for status, n := range want {
				if c[status] != n {
					t.Errorf("%s: %d, want %d (counts %v)", status, c[status], n, c)
				}
			}
			gs, err := st.Failures(ctx, store.FailuresRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(gs) != 2 || gs[0].Kind != "5xx" || gs[0].Count != 9 || gs[1].Kind != "timeout" || gs[1].Count != 8 {
				t.Errorf("failures: %+v, want 9 failed 5xx and 8 dead timeouts", gs)
			}
			buckets, err := st.Activity(ctx, first, first.Add(2*time.Minute), 2*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if b := buckets[0]; b.Received != 40 || b.Delivered != 9 || b.Failed != 17 {
				t.Errorf("activity: %+v, want 40 received, 9 delivered, 17 failed", b)
			}
		})
	}
}

// migrated opens the store at url, migrated, closed when the test ends.
func migrated(t *testing.T, url string) store.DB {
	t.Helper()
	ctx := context.Background()
	st, err := storeopen.Open(ctx, url, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}
