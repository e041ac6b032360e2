package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// operatorConfig pushes to a sink that answers with a body, and has a pull
// destination to pause.
func operatorConfig(sink string) string {
	return `tokens:
  - {name: ops, role: admin, secret: "${E2E_ADMIN_TOKEN}"}
  - {name: dashboard, role: read, secret: "${E2E_READ_TOKEN}"}
` + stripeSource + `destinations:
  - name: sink
    url: "` + sink + `/hooks?key=not-for-display"
    secret: "whsec_ZTJlLXNpbmstc2lnbmluZw=="
    sources: [stripe]
    backoff: [1s]
  - name: dev
    pull: true
    secret: "whsec_ZTJlLWRldi1zaWduaW5n"
    sources: [stripe]
`
}

// TestOperatorSeesWhy drives what an operator uses in an incident with
// the real binary: attempts with response snippets and replay rounds,
// the rejection record, destinations with pause, resume and skip, and the
// audit log of all of it.
func TestOperatorSeesWhy(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				fmt.Fprint(w, "ok from the sink\n")
			}))
			defer sink.Close()
			p := startRelay(t, driver.URL(t), operatorConfig(sink.URL), adminEnv)
			admin, read := cliEnv(p, e2eAdminToken), cliEnv(p, e2eReadToken)

			// Attempts, and replay rounds apart.
			postSigned(t, p, []byte(`{"id":"evt_why","type":"invoice.paid","created":1}`))
			id := strings.TrimSpace(wantRun(t, read, 0, "events", "list", "--ids").stdout)
			testkit.Eventually(t, 20*time.Second, "the first delivery", func() error {
				out := wantRun(t, read, 0, "events", "list").stdout
				return testkit.Check(strings.Contains(out, "sink:done"), "events list:\n%s", out)
			})
			wantRun(t, admin, 0, "replay", "--id", id, "--destination", "sink", "--yes")
			// A successful attempt is listed with its code and time, not
			// its answer, which only failed attempts keep.
			succeeded := regexp.MustCompile(` 200 +\d+ms`)
			testkit.Eventually(t, 20*time.Second, "the replayed delivery", func() error {
				out := wantRun(t, read, 0, "events", "show", id).stdout
				return testkit.Check(len(succeeded.FindAllString(out, -1)) == 2, "events show:\n%s", out)
			})
			r := wantRun(t, read, 0, "events", "show", id)
			contains(t, "events show", r.stdout, "replays 1", "first run", "replay 1")
			if strings.Index(r.stdout, "first run") > strings.Index(r.stdout, "replay 1") {
				t.Errorf("rounds out of order:\n%s", r.stdout)
			}

			// The rejection record: a forged request, never its body.
			forged, _ := http.NewRequest(http.MethodPost, "http://"+p.public+"/webhooks/stripe", bytes.NewReader([]byte(`{"secret-body":1}`)))
			forged.Header.Set("Stripe-Signature", fmt.Sprintf("t=%d,v1=%064d", time.Now().Unix(), 0))
			resp, err := http.DefaultClient.Do(forged)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			testkit.Eventually(t, 20*time.Second, "the rejection record", func() error {
				out := wantRun(t, read, 0, "rejections", "--source", "stripe", "--since", "-1h").stdout
				return testkit.Check(strings.Contains(out, "stripe"), "rejections:\n%s", out)
			})
			r = wantRun(t, read, 0, "rejections", "--source", "stripe")
			contains(t, "rejections", r.stdout, "REASON", "SKEW", "REMOTE ADDRESS", "127.0.0.1", "17 bytes")
			if strings.Contains(r.stdout, "secret-body") {
				t.Errorf("rejections printed a body:\n%s", r.stdout)
			}
			r = wantRun(t, read, 0, "rejections", "--source", "github")
			contains(t, "rejections of another source", r.stderr, "no rejections match")

			// Destinations, pause and resume.
			r = wantRun(t, read, 0, "destinations")
			contains(t, "destinations", r.stdout, "sink", "push", sink.URL+"/hooks", "dev", "pull", "delivering")
			if strings.Contains(r.stdout, "not-for-display") {
				t.Errorf("destinations printed a URL's query:\n%s", r.stdout)
			}
			r = wantRun(t, read, 1, "destinations", "pause", "dev")
			contains(t, "pause with a read token", r.stderr+r.stdout, "admin token")
			r = wantRun(t, admin, 0, "destinations", "pause", "dev")
			contains(t, "pause", r.stdout, "paused dev: its deliveries wait, nothing is dropped")
			r = wantRun(t, admin, 2, "destinations", "pause", "deev")
			contains(t, "pause of a typo", r.stderr, `no destination "deev" in the config (did you mean "dev"?)`)
			contains(t, "destinations after pause", wantRun(t, read, 0, "destinations").stdout, "paused since")
			contains(t, "stats --json after pause", wantRun(t, read, 0, "stats", "--json").stdout, `"paused_for_seconds"`)
			contains(t, "stats after pause", wantRun(t, read, 0, "stats").stdout, "PAUSED", "for ")
			api := apiOf(p, e2eAdminToken)
			if claimed, err := api.Claim(t.Context(), "dev", adminclient.ClaimRequest{}); err != nil || len(claimed.Deliveries) != 0 {
				t.Errorf("claim of a paused destination: %v with %d deliveries, want none", err, len(claimed.Deliveries))
			}
			wantRun(t, admin, 0, "destinations", "resume", "dev")
			if claimed, err := api.Claim(t.Context(), "dev", adminclient.ClaimRequest{}); err != nil || len(claimed.Deliveries) != 1 {
				t.Errorf("claim after resume: %v with %d deliveries, want 1", err, len(claimed.Deliveries))
			}

			// Skip the delivery the claim holds: the holder's ack is then
			// refused, and it is not tried again.
			show := wantRun(t, read, 0, "events", "show", id).stdout
			m := regexp.MustCompile(`dev\s+processing\s+delivery (\d+)`).FindStringSubmatch(show)
			if m == nil {
				t.Fatalf("no processing dev delivery in:\n%s", show)
			}
			r = wantRun(t, admin, 0, "destinations", "skip", m[1])
			contains(t, "skip", r.stdout, "skipped delivery "+m[1]+" to dev")
			r = wantRun(t, admin, 1, "destinations", "skip", m[1])
			contains(t, "second skip", r.stderr, "already final")
			r = wantRun(t, admin, 2, "destinations", "skip", "not-a-number")
			contains(t, "skip of a bad id", r.stderr, "want the number")
			contains(t, "events show after skip", wantRun(t, read, 0, "events", "show", id).stdout, "skipped by ops")

			// The audit log holds all of it, newest first.
			r = wantRun(t, read, 0, "audit", "--since", "-1h")
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			var kinds []string
			for _, l := range lines[1:] {
				kinds = append(kinds, strings.Fields(l)[2])
			}
			if got := strings.Join(kinds, " "); got != "skip resume pause replay replay" {
				t.Errorf("audit kinds = %q, want skip, resume, pause and the replay with its dry run:\n%s", got, r.stdout)
			}
			contains(t, "audit", r.stdout, "ops", `"destination":"dev"`, "1 matched, 1 re-armed")
		})
	}
}
