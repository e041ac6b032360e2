package relay_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

const consumerToken = "consumer-token-0123456789"

// alertSink records the alerts posted to it.
type alertSink struct {
	mu     sync.Mutex
	alerts []delivery.Alert
}

func (s *alertSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var a delivery.Alert
	if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.alerts = append(s.alerts, a)
	s.mu.Unlock()
}

func (s *alertSink) received() []delivery.Alert {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]delivery.Alert(nil), s.alerts...)
}

// TestPullDeadLetterAlertsAndCounts checks that a pull delivery whose
// consumer fails it until max_attempts goes dead as a pushed one does: the
// alert is posted to alerts.url and the dead letter is counted on /metrics,
// with only pull destinations configured.
func TestPullDeadLetterAlertsAndCounts(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			sink := &alertSink{}
			alerts := httptest.NewServer(sink)
			defer alerts.Close()
			r := startRelay(t, driver.URL(t), `alerts: {url: "`+alerts.URL+`"}
tokens:
  - {name: dev, role: consumer, secret: "`+consumerToken+`", destinations: [dev]}
destinations:
  - {name: dev, pull: true, secret: "`+secret+`", sources: [stripe], max_attempts: 2, backoff: [1s]}
`)
			if code := post(t, r, `{"id":"evt_pd1","type":"invoice.paid","created":1700000000}`); code != 200 {
				t.Fatalf("post: %d", code)
			}
			api := adminclient.New("http://"+r.AdminAddr(), consumerToken)
			for attempt := 1; attempt <= 2; attempt++ {
				got, err := api.Claim(t.Context(), "dev", adminclient.ClaimRequest{Wait: 5 * time.Second})
				if err != nil || len(got.Deliveries) != 1 {
					t.Fatalf("claim %d: %v, %d deliveries, want 1", attempt, err, len(got.Deliveries))
				}
				d := got.Deliveries[0]
				if d.Attempt != attempt {
					t.Errorf("claim %d: attempt %d", attempt, d.Attempt)
				}
				res, err := api.Ack(t.Context(), d.ID, adminwire.AckRequest{
					Outcome: adminwire.OutcomeFailed, Error: "local server down", StatusCode: 502, LeaseToken: d.LeaseToken,
				})
				if want := map[int]string{1: "failed", 2: "dead"}[attempt]; err != nil || res.Status != want {
					t.Fatalf("ack %d: %v, status %q, want %q", attempt, err, res.Status, want)
				}
			}

			testkit.Eventually(t, 20*time.Second, "the dead letter's alert", func() error {
				return testkit.Check(len(sink.received()) > 0, "none posted")
			})
			got := sink.received()
			if len(got) != 1 {
				t.Fatalf("alerts posted: %d, want 1", len(got))
			}
			a := got[0]
			if a.Destination != "dev" || a.Source != "stripe" || a.Type != "invoice.paid" || a.ProviderEventID != "evt_pd1" ||
				a.Attempts != 2 || a.LastStatusCode != 502 || a.LastError != "local server down" || a.DeliveryID == 0 || a.EventID == "" {
				t.Errorf("alert = %+v", a)
			}

			// The alert is counted once its POST has been answered: wait
			// for the count rather than race it.
			wants := []string{
				`hookrelay_dead_letters_total{destination="dev"} 1`,
				`hookrelay_deliveries_total{destination="dev",outcome="failed"} 1`,
				`hookrelay_deliveries_total{destination="dev",outcome="dead"} 1`,
				`hookrelay_dead_letter_alerts_total{outcome="sent"} 1`,
			}
			testkit.Eventually(t, 20*time.Second, "the dead letter counted in /metrics", func() error {
				m := scrape(t, r)
				var missing []string
				for _, want := range wants {
					if !strings.Contains(m, want) {
						missing = append(missing, want)
					}
				}
				return testkit.Check(len(missing) == 0, "/metrics lacks %s:\n%s", strings.Join(missing, ", "), grepLines(m, "dead"))
			})
		})
	}
}
