package relay_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

const secret = "whsec_cmVsYXktdGVzdC1zZWNyZXQ="

// startRelay runs a whole relay in-process on loopback ports.
func startRelay(t *testing.T, database, extra string) *relay.Relay {
	t.Helper()
	return startRelayLogging(t, database, extra, io.Discard)
}

// startRelayLogging is startRelay with the relay's JSON logs written to
// logs.
func startRelayLogging(t *testing.T, database, extra string, logs io.Writer) *relay.Relay {
	t.Helper()
	return startRelayAs(t, relay.RoleAll, database, extra, logs)
}

// startRelayAs is startRelayLogging with the process's role.
func startRelayAs(t *testing.T, role relay.Role, database, extra string, logs io.Writer) *relay.Relay {
	t.Helper()
	cfg := relayConfig(t, database, extra)
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	r, err := relay.New(context.Background(), cfg, role, logger)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	return r
}

// relayConfig is the config of startRelay's relays: database, loopback
// ports, one stripe source, and extra.
func relayConfig(t *testing.T, database, extra string) *config.Config {
	t.Helper()
	yaml := `database: "` + database + `"
listen: 127.0.0.1:0
admin_listen: 127.0.0.1:0
sources:
  - {name: stripe, verify: stripe, secrets: ["` + secret + `"]}
` + extra
	cfg, err := config.Parse([]byte(yaml), t.TempDir(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func post(t *testing.T, r *relay.Relay, body string) int {
	t.Helper()
	h, err := signature.Sign(signature.Options{Scheme: "stripe", Secrets: []string{secret}}, 0, signature.Message{Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+r.PublicAddr()+"/webhooks/stripe", bytes.NewReader([]byte(body)))
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func scrape(t *testing.T, r *relay.Relay) string {
	t.Helper()
	resp, err := http.Get("http://" + r.AdminAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestBacklogMetrics checks that /metrics reports each destination's
// deliveries by status from the store.
func TestBacklogMetrics(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			// The destination refuses connections: its delivery stays live.
			r := startRelay(t, driver.URL(t), `destinations:
  - {name: down, url: "http://127.0.0.1:1/", secret: "`+secret+`", sources: [stripe], backoff: [1h]}
`)
			if code := post(t, r, `{"id":"evt_b1","type":"invoice.paid","created":1700000000}`); code != 200 {
				t.Fatalf("post: %d", code)
			}
			var m string
			testkit.Eventually(t, 10*time.Second, "a failed delivery in /metrics", func() error {
				m = scrape(t, r)
				return testkit.Check(strings.Contains(m, `hookrelay_deliveries{destination="down",kind="push",status="failed"} 1`),
					"\n%s", grepLines(m, "hookrelay_deliver"))
			})
			if !strings.Contains(m, `hookrelay_delivery_oldest_pending_age_seconds{destination="down",kind="push"}`) {
				t.Error("no oldest pending age series")
			}
		})
	}
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestStoredEventWakesDelivery checks that the receiver wakes the delivery
// engine: each event reaches an idle destination well before the engine's
// one-second poll would have found it. The destination has a rate, so its
// deliveries are created pending and claimed rather than leased at ingest.
func TestStoredEventWakesDelivery(t *testing.T) {
	t.Parallel()
	arrived := make(chan time.Time, 10)
	dest := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		arrived <- time.Now()
	}))
	defer dest.Close()
	db := testdb.SQLiteURL(t)
	r := startRelay(t, db, `destinations:
  - {name: app, url: "`+dest.URL+`", secret: "`+secret+`", sources: [stripe], rate: 1000/s}
`)
	st, err := storeopen.Open(context.Background(), db, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	slow := 0
	for i := range 3 {
		// Once the last event's outcome is recorded, the engine looks once
		// more, finds nothing and sleeps for its poll: idle again.
		testkit.Eventually(t, 5*time.Second, fmt.Sprintf("%d deliveries done", i), func() error {
			s, err := st.Stats(context.Background(), time.Now())
			if err != nil {
				return err
			}
			n := s.Destinations["app"].Counts[store.StatusDone]
			return testkit.Check(n == int64(i), "%d done", n)
		})
		posted := time.Now()
		if code := post(t, r, fmt.Sprintf(`{"id":"evt_w%d","type":"invoice.paid","created":1700000000}`, i)); code != 200 {
			t.Fatalf("post: %d", code)
		}
		select {
		case at := <-arrived:
			if at.Sub(posted) > 300*time.Millisecond {
				slow++
			}
		case <-time.After(5 * time.Second):
			t.Fatal("event not delivered within 5s")
		}
	}
	// Without a wake-up each wait is uniform over the poll's second: three
	// slow ones in a row are what a missing wake-up looks like.
	if slow == 3 {
		t.Error("every event waited for the delivery poll: the receiver does not wake the engine")
	}
}

// TestIngestCountsReachStats checks that the relay counts ingest outcomes
// per source into the store's stats.
func TestIngestCountsReachStats(t *testing.T) {
	t.Parallel()
	db := testdb.SQLiteURL(t)
	r := startRelay(t, db, "")
	post(t, r, `{"id":"evt_c1","type":"invoice.paid","created":1700000000}`)
	post(t, r, `{"id":"evt_c1","type":"invoice.paid","created":1700000000}`)
	if err := r.Shutdown(context.Background()); err != nil { // flushes the counts
		t.Fatal(err)
	}
	st, err := storeopen.Open(context.Background(), db, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	stats, err := st.Stats(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stats.Sources["stripe"], (store.SourceStats{Received: 1, Duplicates: 1}); got != want {
		t.Errorf("stripe stats = %+v, want %+v", got, want)
	}
}

// TestMetricsToken checks that with metrics_token set, /metrics answers
// 401 to a request without it or with another token, and the metrics to
// one that carries it.
func TestMetricsToken(t *testing.T) {
	t.Parallel()
	r := startRelay(t, "sqlite:"+filepath.Join(t.TempDir(), "hookrelay.db"), "metrics_token: scrape-token\n")
	for _, tc := range []struct {
		name, auth string
		want       int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"another token", "Bearer other-token", http.StatusUnauthorized},
		{"not a bearer", "Basic scrape-token", http.StatusUnauthorized},
		{"the token", "Bearer scrape-token", http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+r.AdminAddr()+"/metrics", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
		if got := strings.Contains(string(b), "hookrelay_"); got != (tc.want == http.StatusOK) {
			t.Errorf("%s: metrics in the answer: %t", tc.name, got)
		}
	}
}
