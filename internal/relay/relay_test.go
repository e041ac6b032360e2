package relay_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testdb"
)

const secret = "whsec_cmVsYXktdGVzdC1zZWNyZXQ="

// startRelay runs a whole relay in-process on loopback ports.
func startRelay(t *testing.T, database, extra string) *relay.Relay {
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
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	r, err := relay.New(context.Background(), cfg, relay.RoleAll, logger)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	return r
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
			deadline := time.Now().Add(10 * time.Second)
			for {
				m := scrape(t, r)
				if strings.Contains(m, `hookrelay_deliveries{destination="down",status="failed"} 1`) {
					if !strings.Contains(m, `hookrelay_delivery_oldest_pending_age_seconds{destination="down"}`) {
						t.Error("no oldest pending age series")
					}
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("no failed delivery in /metrics after 10s:\n%s", grepLines(m, "hookrelay_deliver"))
				}
				time.Sleep(100 * time.Millisecond)
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
