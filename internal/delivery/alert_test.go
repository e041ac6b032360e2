package delivery

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/config"
)

// alertSink is a test alert endpoint that fails its first failures posts.
type alertSink struct {
	mu       sync.Mutex
	posts    int
	alerts   []Alert
	raw      []string
	failures int
}

func newAlertSink(t *testing.T, failures int) (*alertSink, *httptest.Server) {
	t.Helper()
	s := &alertSink{failures: failures}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.posts++
		if r.Header.Get("Content-Type") != "application/json" || s.posts <= s.failures {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		var a Alert
		if err := json.Unmarshal(b, &a); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		s.alerts = append(s.alerts, a)
		s.raw = append(s.raw, string(b))
	}))
	t.Cleanup(srv.Close)
	return s, srv
}

func (s *alertSink) snapshot() (posts int, alerts []Alert, raw []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.posts, append([]Alert(nil), s.alerts...), append([]string(nil), s.raw...)
}

func testAlerter(t *testing.T, url string, queue int) (*alerter, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newAlerter(config.Alerts{URL: url}, slog.New(slog.DiscardHandler), m)
	if err != nil {
		t.Fatal(err)
	}
	a.delays = []time.Duration{time.Millisecond, time.Millisecond}
	a.queue = make(chan queuedAlert, queue)
	return a, reg
}

func TestAlerter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		failures  int
		wantPosts int
		wantSent  float64
		wantFail  float64
	}{
		{name: "first try", failures: 0, wantPosts: 1, wantSent: 1},
		{name: "after retries", failures: 2, wantPosts: 3, wantSent: 1},
		{name: "gives up", failures: 10, wantPosts: 3, wantFail: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sink, srv := newAlertSink(t, tt.failures)
			a, reg := testAlerter(t, srv.URL, 4)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go a.run(ctx)
			want := Alert{DeliveryID: 7, EventID: "evt_1", ProviderEventID: "p1", Source: "stripe", Type: "invoice.paid",
				Destination: "billing", Attempts: 3, LastError: "status 500", LastStatusCode: 500}
			a.enqueue(want)
			want.Kind, want.Summary = "dead_letter", "billing: delivery 7 of stripe event p1 (invoice.paid) is dead after 3 attempts: status 500"
			a.stop(cancel)

			posts, alerts, raw := sink.snapshot()
			if posts != tt.wantPosts {
				t.Errorf("posts = %d, want %d", posts, tt.wantPosts)
			}
			if tt.wantSent == 1 {
				if len(alerts) != 1 || alerts[0] != want {
					t.Errorf("alerts = %+v, want [%+v]", alerts, want)
				}
				var fields map[string]any
				_ = json.Unmarshal([]byte(raw[0]), &fields)
				for _, k := range []string{"kind", "summary", "delivery_id", "event_id", "provider_event_id", "source", "type",
					"destination", "attempts", "last_error", "last_status_code"} {
					if _, ok := fields[k]; !ok {
						t.Errorf("alert lacks %q: %s", k, raw[0])
					}
				}
				if len(fields) != 11 {
					t.Errorf("alert has %d fields, want 11 (no url without a console URL): %s", len(fields), raw[0])
				}
			}
			if got := counterValue(t, reg, "hookrelay_dead_letter_alerts_total", map[string]string{"outcome": "sent"}); got != tt.wantSent {
				t.Errorf("sent = %v, want %v", got, tt.wantSent)
			}
			if got := counterValue(t, reg, "hookrelay_dead_letter_alerts_total", map[string]string{"outcome": "failed"}); got != tt.wantFail {
				t.Errorf("failed = %v, want %v", got, tt.wantFail)
			}
		})
	}
}

func TestAlerterDropsWhenFull(t *testing.T) {
	t.Parallel()
	a, reg := testAlerter(t, "http://127.0.0.1:1/", 1)
	a.enqueue(Alert{DeliveryID: 1})
	a.enqueue(Alert{DeliveryID: 2}) // nobody drains: dropped
	if got := counterValue(t, reg, "hookrelay_dead_letter_alerts_total", map[string]string{"outcome": "dropped"}); got != 1 {
		t.Errorf("dropped = %v, want 1", got)
	}
}

// counterValue returns the value of one counter series of reg, 0 when absent.
func counterValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for _, lp := range m.GetLabel() {
				if v, ok := labels[lp.GetName()]; ok && v != lp.GetValue() {
					continue metrics
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}
