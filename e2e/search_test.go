package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// searchConfig has admin and read tokens, the Stripe source and a push
// destination that always answers 503, tried twice.
func searchConfig(sink string) string {
	return `tokens:
  - {name: ops, role: admin, secret: "${E2E_ADMIN_TOKEN}"}
  - {name: dashboard, role: read, secret: "${E2E_READ_TOKEN}"}
` + stripeSource + `destinations:
  - name: flaky
    url: "` + sink + `/hooks"
    secret: "whsec_ZTJlLWZsYWt5LXNpZ25pbmc="
    sources: [stripe]
    max_attempts: 2
    backoff: [1h]
`
}

// TestSearchAndAttemptHeaders drives `events list --id/--text` and
// `events show --headers` with the real binary against a real relay: what
// an operator types to find an event by part of an id or by a customer id
// in its payload, and to see what a failed push sent and got back.
func TestSearchAndAttemptHeaders(t *testing.T) {
	t.Parallel()
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_e2e_42")
		w.Header().Set("Retry-After", "120")
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	}))
	t.Cleanup(sink.Close)
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), searchConfig(sink.URL), adminEnv)
			for i, customer := range []string{"cus_42", "cus_7", "cus_42"} {
				postSigned(t, p, fmt.Appendf(nil, `{"id":"evt_srch_%d","type":"invoice.paid","data":{"object":{"customer":%q}}}`, i, customer))
			}
			read := cliEnv(p, e2eReadToken)

			r := wantRun(t, read, 0, "events", "list", "--id", "evt_srch_1")
			contains(t, "events list --id", r.stdout, "evt_srch_1")
			if strings.Contains(r.stdout, "evt_srch_0") || strings.Contains(r.stdout, "evt_srch_2") {
				t.Errorf("events list --id evt_srch_1 lists other events:\n%s", r.stdout)
			}
			r = wantRun(t, read, 0, "events", "list", "--text", `"cus_42"`)
			contains(t, "events list --text", r.stdout, "evt_srch_0", "evt_srch_2")
			contains(t, "events list --text stderr", r.stderr, "searched 3 events, every one the filters select")
			if strings.Contains(r.stdout, "evt_srch_1") {
				t.Errorf("events list --text cus_42 lists cus_7's event:\n%s", r.stdout)
			}
			r = wantRun(t, read, 0, "events", "list", "--text", "cus_", "--scan", "2")
			contains(t, "events list --scan 2 stderr", r.stderr, "searched 2 events back to", "(--scan 2)", "more events: add --cursor ")
			r = wantRun(t, read, 2, "events", "list", "--id", "evt", "--text", "cus")
			contains(t, "events list --id --text", r.stderr, "not both")

			// The first failed attempt of evt_srch_0 and what it kept.
			id := strings.TrimSpace(wantRun(t, read, 0, "events", "list", "--id", "evt_srch_0", "--ids").stdout)
			testkit.Eventually(t, 30*time.Second, "a failed attempt", func() error {
				var ev struct {
					Deliveries []struct {
						AttemptLog []json.RawMessage `json:"attempt_log"`
					} `json:"deliveries"`
				}
				out := wantRun(t, read, 0, "events", "show", id, "--json").stdout
				return testkit.Check(json.Unmarshal([]byte(out), &ev) == nil && len(ev.Deliveries) == 1 && len(ev.Deliveries[0].AttemptLog) > 0,
					"the event reads %s", out)
			})
			r = wantRun(t, read, 0, "events", "show", id, "--headers")
			contains(t, "events show --headers", r.stdout, "sent:", "Webhook-Id: "+id, "Webhook-Signature: v1,", "…",
				"Hookrelay-Event-Id: evt_srch_0", "received:", "X-Request-Id: req_e2e_42", "Retry-After: 120")
			r = wantRun(t, read, 0, "events", "show", id)
			if strings.Contains(r.stdout, "req_e2e_42") {
				t.Errorf("events show without --headers prints them:\n%s", r.stdout)
			}
		})
	}
}
