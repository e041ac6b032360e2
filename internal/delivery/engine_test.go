package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/groupcommit"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

func TestEngineFanOutWithOneDestinationDown(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		up := newEndpoint(t, nil)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		downURL := "http://" + ln.Addr().String()
		_ = ln.Close() // connection refused from now on

		events := ingestEvents(t, b.store, 30, []string{"up", "down"}, nil)
		down := testDestination("down", downURL)
		down.MaxAttempts = 1000
		startEngine(t, Options{
			Queue:        b.queue,
			Destinations: []config.Destination{testDestination("up", up.srv.URL), down},
			Registerer:   b.reg,
		})

		waitStatus(t, b.store, events, "up", store.StatusDone, 10*time.Second)
		got := up.byEvent()
		for _, ev := range events {
			hs := got[ev.ID]
			if len(hs) != 1 {
				t.Errorf("event %s reached up %d times, want once", ev.ID, len(hs))
				continue
			}
			if !bytes.Equal(hs[0].body, ev.Body) {
				t.Errorf("event %s: body %q, want %q", ev.ID, hs[0].body, ev.Body)
			}
			if !verifyStandard(testSecret, hs[0].header, hs[0].body, time.Now()) {
				t.Errorf("event %s: signature does not verify", ev.ID)
			}
		}
		testkit.Eventually(t, 10*time.Second, "down's deliveries to fail", func() error {
			for _, ev := range events {
				d := deliveryOf(t, b.store, ev.ID, "down")
				if d.Attempts < 1 || d.Status == store.StatusDone || d.Status == store.StatusDead {
					return fmt.Errorf("the delivery of %s is %s after %d attempts", ev.ID, d.Status, d.Attempts)
				}
			}
			return nil
		})
		d := deliveryOf(t, b.store, events[0].ID, "down")
		if d.LastStatusCode != 0 || d.LastError == "" {
			t.Errorf("down delivery = %+v, want a connection error and no status code", d)
		}
		// An outcome is counted once its batch's commit has returned, a
		// moment after the database shows it.
		testkit.Eventually(t, 10*time.Second, "every delivery to up counted", func() error {
			n := counterValue(t, b.reg, "hookrelay_deliveries_total", map[string]string{"destination": "up", "outcome": "done"})
			return testkit.Check(n == 30, "hookrelay_deliveries_total{up,done} = %v, want 30", n)
		})
	})
}

func TestEngineRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, func(_ hit, n int) (int, http.Header) {
			if n <= 2 {
				return http.StatusInternalServerError, nil
			}
			return http.StatusOK, nil
		})
		events := ingestEvents(t, b.store, 1, []string{"d"}, nil)
		startEngine(t, Options{Queue: b.queue, Destinations: []config.Destination{testDestination("d", ep.srv.URL)}})

		waitStatus(t, b.store, events, "d", store.StatusDone, 10*time.Second)
		hits := ep.received()
		if len(hits) != 3 {
			t.Fatalf("destination received %d requests, want 3", len(hits))
		}
		for i, h := range hits {
			if got := h.header.Get("hookrelay-attempt"); got != strconv.Itoa(i+1) {
				t.Errorf("request %d: hookrelay-attempt = %q, want %d", i, got, i+1)
			}
			if got := h.header.Get("webhook-id"); got != events[0].ID {
				t.Errorf("request %d: webhook-id = %q, want %q", i, got, events[0].ID)
			}
			if got := h.header.Get("hookrelay-replay"); got != "0" {
				t.Errorf("request %d: hookrelay-replay = %q, want 0", i, got)
			}
		}
		d := deliveryOf(t, b.store, events[0].ID, "d")
		if d.Attempts != 3 || d.FinishedAt.IsZero() {
			t.Errorf("delivery = %+v, want done after 3 attempts", d)
		}
		attempts, err := b.queue.DeliveryAttempts(context.Background(), d.ID)
		if err != nil {
			t.Fatal(err)
		}
		var codes []int
		for _, a := range attempts {
			codes = append(codes, a.StatusCode)
		}
		if len(codes) != 3 || codes[0] != 500 || codes[1] != 500 || codes[2] != 200 {
			t.Errorf("attempt codes = %v, want [500 500 200]", codes)
		}
	})
}

func TestEngineDeadAfterMaxAttemptsAlertsOnce(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, func(hit, int) (int, http.Header) { return http.StatusServiceUnavailable, nil })
		sink, alertSrv := newAlertSink(t, 0)
		events := ingestEvents(t, b.store, 1, []string{"d"}, nil)
		dest := testDestination("d", ep.srv.URL)
		dest.MaxAttempts = 3
		startEngine(t, Options{Queue: b.queue, Destinations: []config.Destination{dest}, Alerts: config.Alerts{URL: alertSrv.URL}, Registerer: b.reg})

		waitStatus(t, b.store, events, "d", store.StatusDead, 10*time.Second)
		testkit.Eventually(t, 5*time.Second, "the alert", func() error {
			_, alerts, _ := sink.snapshot()
			return testkit.Check(len(alerts) > 0, "no alert yet")
		})
		// A wrong fourth attempt would follow within the 10ms backoff, and a
		// second alert as quickly.
		testkit.Consistently(t, 200*time.Millisecond, "no attempt or alert after the dead letter", func() error {
			posts, _, _ := sink.snapshot()
			n := len(ep.received())
			return testkit.Check(posts <= 1 && n <= 3, "%d alert posts, %d requests", posts, n)
		})

		if n := len(ep.received()); n != 3 {
			t.Errorf("destination received %d requests, want 3", n)
		}
		d := deliveryOf(t, b.store, events[0].ID, "d")
		if d.Attempts != 3 || d.LastStatusCode != 503 {
			t.Errorf("delivery = %+v, want dead after 3 attempts with 503", d)
		}
		posts, alerts, raw := sink.snapshot()
		want := Alert{
			Kind:       "dead_letter",
			Summary:    fmt.Sprintf("d: delivery %d of src event %s (thing.happened) is dead after 3 attempts: status 503", d.ID, events[0].ProviderEventID),
			DeliveryID: d.ID, EventID: events[0].ID, ProviderEventID: events[0].ProviderEventID,
			Source: "src", Type: "thing.happened", Destination: "d", Attempts: 3,
			LastError: "status 503", LastStatusCode: 503,
		}
		if posts != 1 || len(alerts) != 1 || alerts[0] != want {
			t.Errorf("alerts = %d posts %+v, want exactly one %+v", posts, alerts, want)
		}
		if len(raw) == 1 && bytes.Contains([]byte(raw[0]), events[0].Body) {
			t.Errorf("alert carries the payload: %s", raw[0])
		}
		if n := counterValue(t, b.reg, "hookrelay_dead_letters_total", map[string]string{"destination": "d"}); n != 1 {
			t.Errorf("hookrelay_dead_letters_total = %v, want 1", n)
		}
	})
}

func TestEngineSkipped(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, func(hit, int) (int, http.Header) {
			return http.StatusOK, http.Header{"Hookrelay-Outcome": {"skipped"}}
		})
		events := ingestEvents(t, b.store, 2, []string{"d"}, nil)
		startEngine(t, Options{Queue: b.queue, Destinations: []config.Destination{testDestination("d", ep.srv.URL)}})

		waitStatus(t, b.store, events, "d", store.StatusSkipped, 10*time.Second)
		// A wrong retry of a skipped delivery would come within the 10ms backoff.
		testkit.Consistently(t, 100*time.Millisecond, "no retry of a skipped delivery", func() error {
			n := len(ep.received())
			return testkit.Check(n <= 2, "%d requests", n)
		})
		if n := len(ep.received()); n != 2 {
			t.Errorf("destination received %d requests, want 2", n)
		}
		if d := deliveryOf(t, b.store, events[0].ID, "d"); d.Attempts != 1 {
			t.Errorf("attempts = %d, want 1", d.Attempts)
		}
	})
}

// TestEngineOrderingPerKey interleaves three keys whose events occurred in
// an order other than their arrival. The head of key "a" fails until every
// delivery of "b" and "c" has arrived, so it only succeeds if a failing head
// blocks its own key alone.
func TestEngineOrderingPerKey(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		keys := []string{"a", "b", "c"}
		const perKey = 5
		type msg struct {
			Seq int    `json:"seq"`
			Key string `json:"key"`
		}
		var (
			mu          sync.Mutex
			inFlight    = map[string]int{}
			maxInFlight int
			order       = map[string][]int{}
		)
		// Event i has key keys[i%3] and occurred occurred(i) seconds after
		// a base time: a permutation of its arrival order.
		const n = perKey * 3
		occurred := func(i int) int { return i * 7 % n }
		want := map[string][]int{}
		for i := range n {
			want[keys[i%3]] = append(want[keys[i%3]], i)
		}
		for _, seqs := range want {
			slices.SortFunc(seqs, func(a, b int) int { return occurred(a) - occurred(b) })
		}
		headA := want["a"][0]

		ep := newEndpoint(t, func(h hit, _ int) (int, http.Header) {
			var m msg
			_ = json.Unmarshal(h.body, &m)
			mu.Lock()
			inFlight[m.Key]++
			maxInFlight = max(maxInFlight, inFlight[m.Key])
			others := len(order["b"]) + len(order["c"])
			mu.Unlock()

			time.Sleep(5 * time.Millisecond) // a push that takes a while, so that two in flight for a key would overlap
			status := http.StatusOK
			if m.Key == "a" && m.Seq == headA && others < 2*perKey {
				status = http.StatusInternalServerError
			}
			mu.Lock()
			inFlight[m.Key]--
			if status == http.StatusOK {
				order[m.Key] = append(order[m.Key], m.Seq)
			}
			mu.Unlock()
			return status, nil
		})
		events := ingestEventsAt(t, b.store, n, []string{"d"}, func(i int) string { return keys[i%3] }, occurred)
		dest := testDestination("d", ep.srv.URL)
		dest.OrderingKey = "key"
		dest.Concurrency = 4
		dest.MaxAttempts = 1000
		dest.Backoff = []config.Duration{config.Duration(20 * time.Millisecond)}
		startEngine(t, Options{Queue: b.queue, Destinations: []config.Destination{dest}})

		waitStatus(t, b.store, events, "d", store.StatusDone, 20*time.Second)
		mu.Lock()
		defer mu.Unlock()
		if maxInFlight != 1 {
			t.Errorf("at most %d deliveries of one key were in flight, want 1", maxInFlight)
		}
		for _, key := range keys {
			if got := order[key]; !slices.Equal(got, want[key]) {
				t.Errorf("key %s delivered in order %v, want %v (oldest occurred_at first)", key, got, want[key])
			}
		}
		if d := deliveryOf(t, b.store, events[headA].ID, "d"); d.Attempts < 2 {
			t.Errorf("head of key a took %d attempts, want it to have failed first", d.Attempts)
		}
	})
}

// TestEngineKeyHeadOutcomeSkipsLinger checks that the outcome of a key's
// head is written at once, whatever the committer's linger: the key's next
// delivery is claimable only once it is, so with an hour's linger a key of
// five events would otherwise deliver one.
func TestEngineKeyHeadOutcomeSkipsLinger(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, func(hit, int) (int, http.Header) { return http.StatusOK, nil })
		events := ingestEvents(t, b.store, 5, []string{"d"}, func(int) string { return "key" })
		dest := testDestination("d", ep.srv.URL)
		dest.OrderingKey = "key"
		startEngine(t, Options{Queue: b.queue, Destinations: []config.Destination{dest},
			Outcomes: groupcommit.Options{Linger: time.Hour}})
		waitStatus(t, b.store, events, "d", store.StatusDone, 20*time.Second)
	})
}

// TestEngineOrderingDeadHeadReleasesKey checks that a key moves on once its
// head is dead.
func TestEngineOrderingDeadHeadReleasesKey(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, func(h hit, _ int) (int, http.Header) {
			if bytes.Contains(h.body, []byte(`"seq":0`)) {
				return http.StatusInternalServerError, nil
			}
			return http.StatusOK, nil
		})
		events := ingestEvents(t, b.store, 2, []string{"d"}, func(int) string { return "k" })
		dest := testDestination("d", ep.srv.URL)
		dest.OrderingKey = "key"
		dest.MaxAttempts = 2
		startEngine(t, Options{Queue: b.queue, Destinations: []config.Destination{dest}})

		waitStatus(t, b.store, events[1:], "d", store.StatusDone, 10*time.Second)
		if d := deliveryOf(t, b.store, events[0].ID, "d"); d.Status != store.StatusDead {
			t.Errorf("head status = %s, want dead", d.Status)
		}
		var seen []string
		for _, h := range ep.received() {
			seen = append(seen, h.header.Get("webhook-id"))
		}
		want := []string{events[0].ID, events[0].ID, events[1].ID}
		if len(seen) != 3 || seen[0] != want[0] || seen[1] != want[1] || seen[2] != want[2] {
			t.Errorf("requests for %v, want %v", seen, want)
		}
	})
}

func TestEngineHangingDestinationDoesNotSlowAnother(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		hang, release := newHangingEndpoint(t)
		fast := newEndpoint(t, nil)
		events := ingestEvents(t, b.store, 40, []string{"hang", "fast"}, nil)
		// The hanging destination's attempts outlast the whole wait below:
		// the fast destination can only finish while they are still in
		// flight if nothing it needs is held by them. No wall-clock bound
		// is asserted beyond that, so a loaded machine cannot fail it.
		slow := testDestination("hang", hang.srv.URL)
		slow.Timeout = config.Duration(time.Minute)
		slow.Concurrency = 2
		startEngine(t, Options{
			Queue:        b.queue,
			Destinations: []config.Destination{slow, testDestination("fast", fast.srv.URL)},
		})
		t.Cleanup(release) // runs first: the engine's stop waits for the hanging attempts

		waitStatus(t, b.store, events, "fast", store.StatusDone, 30*time.Second)
		if n := len(hang.received()); n != 2 {
			t.Errorf("hanging destination has %d requests, want its concurrency (2)", n)
		}
	})
}

func TestEngineWakeWithoutPolling(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, nil)
		q := &countedClaims{Queue: b.queue}
		e, _, _ := startEngine(t, Options{
			Queue:        q,
			Destinations: []config.Destination{testDestination("d", ep.srv.URL)},
			PollInterval: time.Hour,
		})
		testkit.Eventually(t, 5*time.Second, "the first look at the queue, which finds nothing", func() error {
			return testkit.Check(q.returned.Load() >= 1, "no claim has returned")
		})
		events := ingestEvents(t, b.store, 1, []string{"d"}, nil)
		// Were the engine to look again on its own, it would within the
		// 50ms the tests poll at otherwise.
		testkit.Consistently(t, 200*time.Millisecond, "no delivery before Wake with an hour's poll", func() error {
			n := len(ep.received())
			return testkit.Check(n == 0, "delivered %d", n)
		})
		e.Wake("unknown") // ignored
		e.Wake("d")
		waitStatus(t, b.store, events, "d", store.StatusDone, 5*time.Second)
	})
}

func TestEngineStopLetsAttemptsFinish(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		arrived, release := make(chan struct{}, 1), make(chan struct{})
		ep := newEndpoint(t, func(hit, int) (int, http.Header) {
			arrived <- struct{}{}
			<-release // still in flight when the engine is told to stop
			return http.StatusOK, nil
		})
		events := ingestEvents(t, b.store, 1, []string{"d"}, nil)
		_, cancel, done := startEngine(t, Options{Queue: b.queue, Destinations: []config.Destination{testDestination("d", ep.srv.URL)}})
		select {
		case <-arrived:
		case <-time.After(5 * time.Second):
			t.Fatal("no request arrived")
		}
		cancel()
		close(release)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Run did not return")
		}
		if d := deliveryOf(t, b.store, events[0].ID, "d"); d.Status != store.StatusDone {
			t.Errorf("status after stop = %s, want done: the attempt in flight finished and was recorded", d.Status)
		}
	})
}

func TestNewRejects(t *testing.T) {
	t.Parallel()
	ok := testDestination("d", "http://127.0.0.1:1/")
	noURL := testDestination("d", "")
	noTimeout := testDestination("d", "http://127.0.0.1:1/")
	noTimeout.Timeout = 0
	noConcurrency := testDestination("d", "http://127.0.0.1:1/")
	noConcurrency.Concurrency = 0
	pull := testDestination("p", "")
	pull.Pull = true
	tests := []struct {
		name string
		o    Options
	}{
		{name: "no queue", o: Options{}},
		{name: "bad url", o: Options{Queue: nopQueue{}, Destinations: []config.Destination{noURL}}},
		{name: "twice", o: Options{Queue: nopQueue{}, Destinations: []config.Destination{ok, ok}}},
		{name: "no timeout", o: Options{Queue: nopQueue{}, Destinations: []config.Destination{noTimeout}}},
		{name: "no concurrency", o: Options{Queue: nopQueue{}, Destinations: []config.Destination{noConcurrency}}},
		{name: "bad alert url", o: Options{Queue: nopQueue{}, Alerts: config.Alerts{URL: "mailto:ops@example.com"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := New(tt.o); err == nil {
				t.Error("New succeeded")
			}
		})
	}
	e, err := New(Options{Queue: nopQueue{}, Destinations: []config.Destination{ok, pull}})
	if err != nil || len(e.order) != 1 {
		t.Errorf("New with a pull destination = %v, %v; want it skipped", e, err)
	}
}

// nopQueue satisfies store.Queue for tests of New, which never calls it.
type nopQueue struct{ store.Queue }

func TestEngineRunWithoutDestinationsWaitsForCancel(t *testing.T) {
	t.Parallel()
	e, err := New(Options{Queue: nopQueue{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	select {
	case err := <-done:
		t.Fatalf("Run returned %v before its context was cancelled", err)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
}

// TestEngineLeaseLostIsDropped hands a worker a claim whose lease is no
// longer its own: the outcome is logged and dropped, not counted, and a
// would-be dead letter raises no alert.
func TestEngineLeaseLostIsDropped(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, func(hit, int) (int, http.Header) { return http.StatusInternalServerError, nil })
		sink, alertSrv := newAlertSink(t, 0)
		events := ingestEvents(t, b.store, 1, []string{"d"}, nil)
		dest := testDestination("d", ep.srv.URL)
		dest.MaxAttempts = 1
		var logs bytes.Buffer
		var logMu sync.Mutex
		e, err := New(Options{
			Queue: b.queue, Destinations: []config.Destination{dest}, Alerts: config.Alerts{URL: alertSrv.URL}, Registerer: b.reg,
			Logger: slog.New(slog.NewJSONHandler(lockedWriter{&logMu, &logs}, nil)),
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go e.alerts.run(ctx)
		t.Cleanup(func() { e.alerts.stop(cancel) })

		claims, err := b.queue.ClaimDeliveries(context.Background(), store.ClaimRequest{Destination: "d", Max: 1, Lease: time.Minute, Now: time.Now()})
		if err != nil || len(claims) != 1 {
			t.Fatalf("ClaimDeliveries = %d, %v; want 1 claim", len(claims), err)
		}
		c := claims[0]
		c.LeaseToken = "not-the-lease"
		e.workers["d"].attempt(c)

		if d := deliveryOf(t, b.store, events[0].ID, "d"); d.Status != store.StatusProcessing {
			t.Errorf("status = %s, want processing: a lost lease records nothing", d.Status)
		}
		if n := counterValue(t, b.reg, "hookrelay_dead_letters_total", map[string]string{"destination": "d"}); n != 0 {
			t.Errorf("hookrelay_dead_letters_total = %v, want 0", n)
		}
		if n := counterValue(t, b.reg, "hookrelay_deliveries_total", map[string]string{"destination": "d", "outcome": "dead"}); n != 0 {
			t.Errorf("hookrelay_deliveries_total{dead} = %v, want 0", n)
		}
		logMu.Lock()
		out := logs.String()
		logMu.Unlock()
		if !strings.Contains(out, `"level":"WARN"`) || !strings.Contains(out, "lease lost") {
			t.Errorf("logs = %s, want a warning about the lost lease", out)
		}
		// The alerter posts as soon as it is handed a dead letter.
		testkit.Consistently(t, 100*time.Millisecond, "no alert for a lost lease", func() error {
			posts, _, _ := sink.snapshot()
			return testkit.Check(posts == 0, "%d alert posts", posts)
		})
	})
}

// lockedWriter serializes writes to a buffer shared with the test.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestEngineRateLimit checks that a destination's rate spaces its attempts:
// a burst of its concurrency at once, then one per 1/rate. The spacing is
// read from when each attempt started, as the store recorded it (after
// its token): the destination's receipt times would add the machine's
// scheduling delays, which make the first of them late and the spread
// look shorter than the limiter made it.
func TestEngineRateLimit(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, nil)
		events := ingestEvents(t, b.store, 10, []string{"d"}, nil)
		dest := testDestination("d", ep.srv.URL)
		dest.Concurrency = 4
		dest.Rate = config.Rate{Events: 20, Per: time.Second}
		began := time.Now()
		startEngine(t, Options{Queue: b.queue, Destinations: []config.Destination{dest}})

		waitStatus(t, b.store, events, "d", store.StatusDone, 10*time.Second)
		if hits := ep.received(); len(hits) != 10 {
			t.Fatalf("destination received %d requests, want 10", len(hits))
		}
		var starts []time.Time
		for _, e := range events {
			as, err := b.queue.DeliveryAttempts(context.Background(), deliveryOf(t, b.store, e.ID, "d").ID)
			if err != nil || len(as) != 1 {
				t.Fatalf("attempts of %s: %+v, %v; want one", e.ID, as, err)
			}
			starts = append(starts, as[0].AttemptedAt)
		}
		slices.SortFunc(starts, time.Time.Compare)
		// 4 at once, then 6 at 20/s: the last starts at least 300ms after
		// the first took its token (less a millisecond of the stored
		// times' precision), and so after the engine began. Not measured
		// from the first attempt's start: it is stamped once its sender
		// runs, which on a busy machine can be a few milliseconds after
		// its token was taken.
		if spread := starts[9].Sub(began); spread < 299*time.Millisecond {
			t.Errorf("10 attempts at 20/s all started within %v of the engine's start, want at least 300ms", spread)
		}
	})
}
