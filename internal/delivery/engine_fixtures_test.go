package delivery

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// testBundle is what an engine test works with: a real, migrated store.
type testBundle struct {
	store store.DB
	queue store.Queue
	reg   *prometheus.Registry
}

// eachDriver runs test once per storage driver, in parallel, each on a
// fresh database.
func eachDriver(t *testing.T, test func(t *testing.T, b testBundle)) {
	for _, drv := range testdb.Drivers() {
		t.Run(drv.Name, func(t *testing.T) {
			t.Parallel()
			test(t, openBundle(t, drv))
		})
	}
}

func openBundle(t *testing.T, drv testdb.Driver) testBundle {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := storeopen.Open(ctx, drv.URL(t), nil)
	if err != nil {
		t.Fatalf("open %s: %v", drv.Name, err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return testBundle{store: st, queue: st, reg: prometheus.NewRegistry()}
}

// testDestination returns a push destination to url with short timings.
func testDestination(name, url string) config.Destination {
	d := config.DefaultDestination()
	d.Name = name
	d.URL = url
	d.Secret = testSecret
	d.Sources = []string{"src"}
	d.Timeout = config.Duration(2 * time.Second)
	d.MaxAttempts = 5
	d.Backoff = []config.Duration{config.Duration(10 * time.Millisecond)}
	return d
}

// startEngine runs an engine until the test ends, then stops it and checks
// that Run returned in time. Register it after the servers and the store so
// that it stops first.
func startEngine(t *testing.T, o Options) (*Engine, context.CancelFunc, <-chan struct{}) {
	t.Helper()
	if o.PollInterval == 0 {
		o.PollInterval = 50 * time.Millisecond
	}
	e, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := e.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("Run did not return after its context was cancelled")
		}
	})
	return e, cancel, done
}

var eventSeq atomic.Int64

// ingestEvents stores n events of source "src", each with one delivery per
// destination, and returns them in order. key, when not nil, gives event i
// its body's "key" field, used as the ordering key. Event i occurred n-i
// seconds ago.
func ingestEvents(t *testing.T, st store.Store, n int, destinations []string, key func(i int) string) []store.Event {
	t.Helper()
	return ingestEventsAt(t, st, n, destinations, key, nil)
}

// ingestEventsAt is ingestEvents with event i occurring occurredAt(i)
// seconds after a fixed time in the past, when occurredAt is not nil.
func ingestEventsAt(t *testing.T, st store.Store, n int, destinations []string, key func(i int) string, occurredAt func(i int) int) []store.Event {
	t.Helper()
	events, items := testItems(n, destinations, key, occurredAt)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := st.Ingest(ctx, items); err != nil {
		t.Fatalf("Ingest: %v", err)
	}
	return events
}

// testItems returns the events and ingest items ingestEventsAt stores.
func testItems(n int, destinations []string, key func(i int) string, occurredAt func(i int) int) ([]store.Event, []store.IngestItem) {
	now := time.Now().UTC()
	events := make([]store.Event, n)
	items := make([]store.IngestItem, n)
	for i := range n {
		seq := eventSeq.Add(1)
		k := ""
		if key != nil {
			k = key(i)
		}
		ev := store.Event{
			ID:              fmt.Sprintf("evt_%012d", seq),
			Source:          "src",
			ProviderEventID: fmt.Sprintf("p_%d", seq),
			IDOrigin:        store.IDFromHeader,
			Type:            "thing.happened",
			Body:            fmt.Appendf(nil, `{"seq":%d, "key":%q}`, i, k),
			ContentType:     "application/json",
			Headers:         map[string][]string{},
			SignatureSlot:   0,
			OccurredAt:      now.Add(time.Duration(i-n) * time.Second),
			ReceivedAt:      now,
		}
		if occurredAt != nil {
			ev.OccurredAt = now.Add(-time.Hour).Add(time.Duration(occurredAt(i)) * time.Second)
		}
		events[i] = ev
		items[i].Event = ev
		for _, d := range destinations {
			items[i].Deliveries = append(items[i].Deliveries, store.NewDelivery{Destination: d, OrderingKey: k})
		}
	}
	return events, items
}

// deliveryOf returns the delivery of one event to one destination.
func deliveryOf(t *testing.T, st store.Store, eventID, destination string) store.Delivery {
	t.Helper()
	d, ok := findDelivery(t, st, eventID, destination)
	if !ok {
		t.Fatalf("event %s has no delivery to %s", eventID, destination)
	}
	return d
}

// findDelivery returns the delivery of one event to one destination, and
// whether it has a row: one leased at ingest may have none until its
// outcome (store.Lease.Deferred).
func findDelivery(t *testing.T, st store.Store, eventID, destination string) (store.Delivery, bool) {
	t.Helper()
	ds, err := st.EventDeliveries(context.Background(), eventID)
	if err != nil {
		t.Fatalf("EventDeliveries: %v", err)
	}
	for _, d := range ds {
		if d.Destination == destination {
			return d, true
		}
	}
	return store.Delivery{}, false
}

// waitStatus waits until every listed event's delivery to destination has
// the given status.
func waitStatus(t *testing.T, st store.Store, events []store.Event, destination string, want store.DeliveryStatus, timeout time.Duration) {
	t.Helper()
	testkit.Eventually(t, timeout, fmt.Sprintf("%d deliveries to %s to be %s", len(events), destination, want), func() error {
		for _, ev := range events {
			d, ok := findDelivery(t, st, ev.ID, destination)
			switch {
			case !ok:
				return fmt.Errorf("the delivery of %s has no row yet", ev.ID)
			case d.Status != want:
				return fmt.Errorf("the delivery of %s is %s", ev.ID, d.Status)
			}
		}
		return nil
	})
}

// hit is one request a test destination received.
type hit struct {
	header http.Header
	body   []byte
	at     time.Time
}

// endpoint is a test destination: it records every request and answers
// with answer (200 when nil).
type endpoint struct {
	srv    *httptest.Server
	answer func(h hit, n int) (status int, header http.Header)

	mu   sync.Mutex
	hits []hit // guarded by mu
}

func newEndpoint(t *testing.T, answer func(h hit, n int) (int, http.Header)) *endpoint {
	t.Helper()
	e := &endpoint{answer: answer}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h := hit{header: r.Header.Clone(), body: b, at: time.Now()}
		e.mu.Lock()
		e.hits = append(e.hits, h)
		n := len(e.hits)
		e.mu.Unlock()
		status := http.StatusOK
		if e.answer != nil {
			var hdr http.Header
			status, hdr = e.answer(h, n)
			for k, v := range hdr {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

// newHangingEndpoint returns an endpoint whose answers wait until release
// is called, and release. The caller registers release as a cleanup after
// starting the engine, so that it runs first: the engine's stop waits for
// the hanging pushes.
func newHangingEndpoint(t *testing.T) (e *endpoint, release func()) {
	t.Helper()
	released := make(chan struct{})
	e = newEndpoint(t, func(hit, int) (int, http.Header) {
		<-released
		return http.StatusOK, nil
	})
	return e, func() { close(released) }
}

func (e *endpoint) received() []hit {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]hit(nil), e.hits...)
}

// byEvent groups an endpoint's hits by webhook-id.
func (e *endpoint) byEvent() map[string][]hit {
	out := map[string][]hit{}
	for _, h := range e.received() {
		id := h.header.Get("webhook-id")
		out[id] = append(out[id], h)
	}
	return out
}
