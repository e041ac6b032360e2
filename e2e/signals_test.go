package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Secrets of a Stripe source in the middle of a rotation: slot 0 is the new
// one, slot 1 the one the provider still signs with, slot 2 an older one
// nobody uses any more.
var rotationSecrets = []string{
	"whsec_c2lnbmFscy1uZXctc2VjcmV0",
	"whsec_c2lnbmFscy1vbGQtc2VjcmV0",
	"whsec_c2lnbmFscy1vbGRlci1zZWNyZXQ",
}

// alertSink records the alerts the relay posts.
type alertSink struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (s *alertSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, b)
	s.mu.Unlock()
}

func (s *alertSink) posted() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// postStripeAs posts a Stripe event created lag ago, signed with secrets'
// slot, and returns the status code.
func postStripeAs(t *testing.T, p *relayProc, secrets []string, slot int, id string, lag time.Duration) int {
	t.Helper()
	body := fmt.Appendf(nil, `{"id":%q,"type":"invoice.paid","created":%d,"marker":"PAYLOAD-MARKER"}`, id, time.Now().Add(-lag).Unix())
	return signedStatus(http.DefaultClient, p, "stripe", signature.Options{Scheme: "stripe", Secrets: secrets}, slot, signature.Message{Body: body})
}

// signedStatus signs msg with opts' slot as the source's provider would,
// posts it to the source, and returns the status code, or 0 when the
// request could not be made. It never stops the test, so senders running
// beside it can call it.
func signedStatus(client *http.Client, p *relayProc, source string, opts signature.Options, slot int, msg signature.Message) int {
	h, err := signature.Sign(opts, slot, msg)
	if err != nil {
		return 0
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+p.public+"/webhooks/"+source, bytes.NewReader(msg.Body))
	if err != nil {
		return 0
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestIngestSignals runs the relay with a source mid-rotation and checks,
// on both drivers, the provider-lag histogram and stats, the rotation
// status of `hookrelay secrets`, and one signature-failure alert for a
// flood of forged requests.
func TestIngestSignals(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			sink := &alertSink{}
			alerts := httptest.NewServer(sink)
			defer alerts.Close()
			cfg := `tokens:
  - {name: dashboard, role: read, secret: "${E2E_READ_TOKEN}"}
sources:
  - name: stripe
    verify: stripe
    secrets: ["${S0}", "${S1}", "${S2}"]
alerts:
  url: ` + alerts.URL + `/alerts
  signature_failures: {rate: 3/m, window: 1m}
`
			env := []string{"E2E_READ_TOKEN=" + e2eReadToken, "S0=" + rotationSecrets[0], "S1=" + rotationSecrets[1], "S2=" + rotationSecrets[2]}
			p := startRelay(t, driver.URL(t), cfg, env)

			for i := range 3 {
				if code := postStripeAs(t, p, rotationSecrets, 1, fmt.Sprintf("evt_old_%d", i), 30*time.Second); code != 200 {
					t.Fatalf("slot 1 event: %d", code)
				}
			}
			if code := postStripeAs(t, p, rotationSecrets, 0, "evt_new_0", 90*time.Second); code != 200 {
				t.Fatalf("slot 0 event: %d", code)
			}

			// The provider lag: in the histogram and in the stats.
			metrics := scrape(t, p)
			contains(t, "metrics", metrics, `hookrelay_provider_lag_seconds_count{source="stripe"} 4`)
			var stats adminwire.Stats
			if err := json.Unmarshal([]byte(wantRun(t, cliEnv(p, e2eReadToken), 0, "stats", "--json").stdout), &stats); err != nil {
				t.Fatal(err)
			}
			lag := stats.Sources["stripe"]
			if lag.ProviderLagSeconds == nil || *lag.ProviderLagSeconds < 29 || *lag.ProviderLagSeconds > 45 ||
				*lag.ProviderLagMaxSeconds < 89 || *lag.ProviderLagMaxSeconds > 105 {
				t.Errorf("stats provider lag = %v, %v; want about 30 s and 90 s", lag.ProviderLagSeconds, lag.ProviderLagMaxSeconds)
			}

			// Rotation status, once the slot counts are flushed (every second).
			var out result
			testkit.Eventually(t, 10*time.Second, "the slot counts", func() error {
				out = wantRun(t, cliEnv(p, e2eReadToken), 0, "secrets")
				return testkit.Check(strings.Contains(squeeze(out.stdout), "stripe 1 active just now 3"), "secrets:\n%s", out.stdout)
			})
			contains(t, "secrets", squeeze(out.stdout),
				"stripe 0 active just now 1",
				"stripe 2 active not in 30 days 0",
				"stripe: slot 2 unused for 30 days: rotation may finish")
			if strings.Contains(out.stdout, "slot 1 ") || strings.Contains(out.stdout, "whsec_") {
				t.Errorf("secrets advises removing a slot in use, or shows a secret:\n%s", out.stdout)
			}

			// Forged requests: more than 3 in the window raise one alert.
			forged := []string{"whsec_Zm9yZ2VkLXNlY3JldA"}
			for i := range 8 {
				if code := postStripeAs(t, p, forged, 0, fmt.Sprintf("evt_forged_%d", i), 0); code != 401 {
					t.Fatalf("forged request: %d, want 401", code)
				}
			}
			testkit.Eventually(t, 10*time.Second, "the alert", func() error {
				return testkit.Check(len(sink.posted()) > 0, "none posted")
			})
			// A second alert would be raised by the runner's next
			// evaluations of the rule, each second, once the counts of the
			// requests above are in the database (within a second).
			testkit.Consistently(t, 3*time.Second, "no second alert", func() error {
				n := len(sink.posted())
				return testkit.Check(n == 1, "%d alerts posted", n)
			})
			posted := sink.posted()
			if len(posted) != 1 {
				t.Fatalf("alerts posted = %d, want 1: %q", len(posted), posted)
			}
			var alert struct {
				Kind       string           `json:"kind"`
				Source     string           `json:"source"`
				Rejections int64            `json:"rejections"`
				Threshold  float64          `json:"threshold"`
				Reasons    map[string]int64 `json:"reasons"`
			}
			if err := json.Unmarshal(posted[0], &alert); err != nil {
				t.Fatal(err)
			}
			// The rule counts what is in the database when it runs: past 3,
			// and at most the 8 posted.
			if alert.Kind != "signature_failures" || alert.Source != "stripe" || alert.Rejections < 4 || alert.Rejections > 8 ||
				alert.Threshold != 3 || alert.Reasons["signature_mismatch"] != alert.Rejections {
				t.Errorf("alert = %s", posted[0])
			}
			if bytes.Contains(posted[0], []byte("PAYLOAD-MARKER")) || bytes.Contains(posted[0], []byte("evt_forged")) {
				t.Errorf("alert carries the body: %s", posted[0])
			}
			contains(t, "metrics", scrape(t, p), `hookrelay_signature_alerts_total{outcome="sent",source="stripe"} 1`)
		})
	}
}

// squeeze turns every run of spaces into one, so tables compare by cell.
func squeeze(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// scrape returns the relay's /metrics text.
func scrape(t *testing.T, p *relayProc) string {
	t.Helper()
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + p.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("metrics: %d %v", resp.StatusCode, err)
	}
	return string(b)
}
