package reliability

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

// adminJSON makes an admin API call to admin with secret as the bearer
// token, body (when not nil) sent as JSON, and decodes a 2xx answer's JSON
// into out (when not nil). It returns the status.
func adminJSON(admin, secret, method, path string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, "http://"+admin+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 || out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	return resp.StatusCode, json.NewDecoder(resp.Body).Decode(out)
}

// migrationsRecorded returns how many migrations the database at url
// records as applied.
func migrationsRecorded(t *testing.T, url string) int {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var n int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM hookrelay.schema_migrations").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// dashboardCounts evaluates the shipped dashboard's backlog and dead
// panels with Prometheus's own engine (promtool) over the three nodes'
// /metrics, each scrape labelled with its instance as Prometheus labels
// it, and checks that they show the database's counts.
func (f *threeNodes) dashboardCounts(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (the prometheus package): the dashboard's queries cannot be evaluated")
	}
	st := openStore(t, f.db)
	var stats store.Stats
	testkit.Eventually(t, 30*time.Second, "50 dead at refused and 50 failed at archive", func() error {
		stats, err = st.Stats(t.Context(), time.Now())
		if err != nil {
			return err
		}
		dead, failed := stats.Destinations["refused"].Counts[store.StatusDead], stats.Destinations["archive"].Counts[store.StatusFailed]
		return testkit.Check(dead == 50 && failed == 50, "dead %d, failed %d", dead, failed)
	})
	want := map[string]string{} // "dead <destination>" or "backlog <destination>" → value
	for dest, ds := range stats.Destinations {
		want["dead "+dest] = fmt.Sprint(ds.Counts[store.StatusDead])
		want["backlog "+dest] = fmt.Sprint(ds.Counts[store.StatusPending] + ds.Counts[store.StatusFailed] + ds.Counts[store.StatusProcessing])
	}
	var series []string
	testkit.Eventually(t, 30*time.Second, "every node exporting the database's counts", func() error {
		series = series[:0]
		for i, p := range f.nodes {
			lines := deliveryGauges(scrapeMetrics(t, p.admin))
			if !slices.Contains(lines, `hookrelay_deliveries{destination="refused",kind="push",status="dead"} 50`) {
				return fmt.Errorf("node %d exports %v", i, lines)
			}
			for _, l := range lines {
				name, value, _ := strings.Cut(l, " ")
				series = append(series, fmt.Sprintf("      - series: '%s,instance=\"node%d\"}'\n        values: '%s'\n", strings.TrimSuffix(name, "}"), i, value))
			}
		}
		return nil
	})

	exprs := dashboardPanels(t)
	var tests strings.Builder
	tests.WriteString("rule_files: []\ntests:\n  - interval: 1m\n    input_series:\n")
	for _, s := range series {
		tests.WriteString(s)
	}
	tests.WriteString("    promql_expr_test:\n")
	for _, panel := range []string{"dead", "backlog"} {
		fmt.Fprintf(&tests, "      - expr: '%s'\n        eval_time: 0m\n        exp_samples:\n", strings.ReplaceAll(exprs[panel], "$destination", ".*"))
		for _, dest := range slices.Sorted(func(yield func(string) bool) {
			for d := range stats.Destinations {
				if !yield(d) {
					return
				}
			}
		}) {
			fmt.Fprintf(&tests, "          - labels: '{destination=\"%s\"}'\n            value: %s\n", dest, want[panel+" "+dest])
		}
	}
	path := filepath.Join(t.TempDir(), "dashboard.test.yaml")
	if err := os.WriteFile(path, []byte(tests.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), promtool, "test", "rules", path).CombinedOutput()
	if err != nil {
		t.Fatalf("the dashboard's panels over three nodes do not show the database's counts:\n%s\n%s", out, tests.String())
	}
}

// deliveryGauges returns the hookrelay_deliveries lines of a scrape.
func deliveryGauges(metrics string) []string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(metrics))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "hookrelay_deliveries{") {
			lines = append(lines, sc.Text())
		}
	}
	return lines
}

// dashboardPanels returns the shipped dashboard's expressions of the dead
// letters ("dead") and the backlog ("backlog"), found by the statuses they
// read.
func dashboardPanels(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("../../deploy/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	exprs := map[string]string{}
	for _, m := range regexp.MustCompile(`"expr":\s*("(?:[^"\\]|\\.)*")`).FindAllSubmatch(raw, -1) {
		var e string
		if err := json.Unmarshal(m[1], &e); err != nil {
			t.Fatal(err)
		}
		switch {
		case !strings.Contains(e, "hookrelay_deliveries{"):
		case strings.Contains(e, `status="dead"`):
			exprs["dead"] = e
		case strings.Contains(e, `pending|failed|processing`):
			exprs["backlog"] = e
		}
	}
	if len(exprs) != 2 {
		t.Fatalf("the dashboard's dead and backlog panels not found: %v", exprs)
	}
	return exprs
}

// oneSignatureAlert posts bad signatures to the stripe source round-robin,
// five to each node: under the threshold of 10 on every node, over it for
// the fleet, which raises one alert. Eleven more to the watchdog source,
// whose alert comes after the runner judged stripe's again, show that no
// second stripe alert was raised.
func (f *threeNodes) oneSignatureAlert(t *testing.T, alerts *alertSink) {
	postForgedRoundRobin(t, f.nodes, "stripe", 15)
	postForgedRoundRobin(t, f.nodes, "watchdog", 11)
	var got []fleetAlert
	testkit.Eventually(t, 30*time.Second, "the watchdog's alert", func() error {
		got = got[:0]
		alerts.mu.Lock()
		for _, a := range alerts.alerts {
			if a.Kind == "signature_failures" && (a.Source == "stripe" || a.Source == "watchdog") {
				got = append(got, a)
			}
		}
		alerts.mu.Unlock()
		return testkit.Check(len(got) > 0 && got[len(got)-1].Source == "watchdog", "%+v", got)
	})
	if len(got) != 2 || got[0].Source != "stripe" || got[0].Rejections <= 10 {
		t.Errorf("signature alerts %+v; want one of stripe's, raised by the fleet's %d, then the watchdog's", got, 15)
	}
}

// consoleUser is a console user's browser: its cookies go to every node
// (cookies are not kept by port).
type consoleUser struct {
	client *http.Client
}

// consoleLogin logs in to node's console with secret, as a user filling
// the login form.
func consoleLogin(t *testing.T, node *relayProcess, secret string) *consoleUser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	u := &consoleUser{client: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	_, page := u.get(t, node, "/")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no login form on %s:\n%s", node.admin, page)
	}
	resp, err := u.client.PostForm("http://"+node.admin+"/login", url.Values{"csrf": {m[1]}, "token": {secret}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), "Log out") {
		t.Fatalf("log in to %s: %d", node.admin, resp.StatusCode)
	}
	return u
}

func (u *consoleUser) get(t *testing.T, node *relayProcess, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://"+node.admin+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return testkit.SendWith(t, u.client, req)
}

// loggedIn reports whether the user's session opens node's events page.
func (u *consoleUser) loggedIn(t *testing.T, node *relayProcess) bool {
	t.Helper()
	code, page := u.get(t, node, "/events")
	if code != http.StatusOK {
		t.Fatalf("GET /events on %s: %d", node.admin, code)
	}
	return strings.Contains(page, "Log out")
}

// onEvery waits until what the user's session does on every node is want.
func (u *consoleUser) onEvery(t *testing.T, nodes []*relayProcess, want bool, what string) {
	t.Helper()
	testkit.Eventually(t, 20*time.Second, what, func() error {
		for _, p := range nodes {
			if u.loggedIn(t, p) != want {
				return fmt.Errorf("node %s: logged in %v", p.admin, !want)
			}
		}
		return nil
	})
}

// consoleSessions logs in through one node and finds the session on all
// three; logs out through another and finds it ended on all; then removes
// the viewer token from every node's file and reloads through one node
// only: the viewer's session ends on all three, the operator's goes on.
func (f *threeNodes) consoleSessions(t *testing.T) {
	ops := consoleLogin(t, f.nodes[0], fleetToken(fleetOpsToken))
	ops.onEvery(t, f.nodes, true, "the session opened on node 0 opening every node")
	ops.get(t, f.nodes[1], "/logout")
	ops.onEvery(t, f.nodes, false, "the session logged out through node 1 ended on every node")

	ops = consoleLogin(t, f.nodes[0], fleetToken(fleetOpsToken))
	viewer := consoleLogin(t, f.nodes[2], fleetToken(fleetViewerToken))
	spec := f.spec
	spec.tokens = []string{fleetOpsToken}
	f.rewrite(t, spec)
	fleetReload(t, f.nodes[0].admin, fleetOpsToken)
	viewer.onEvery(t, f.nodes, false, "the viewer token revoked by node 0's reload, on every node")
	ops.onEvery(t, f.nodes, true, "the operator's session going on")
	if code, err := fleetGet(f.nodes[1].admin, fleetViewerToken); err != nil || code != http.StatusUnauthorized {
		t.Errorf("node 1's API with the revoked token: %d, %v; want 401", code, err)
	}
}

// secretRotated adds a new stripe secret in front of the old one in every
// node's file and reloads through node 0 alone: every node then accepts
// webhooks signed with either.
func (f *threeNodes) secretRotated(t *testing.T) {
	if code := postSigned(t, f.nodes[2].ingestURL(), stripeNextSecret, "evt_rotation_early"); code != http.StatusUnauthorized {
		t.Fatalf("node 2 before the rotation: %d, want 401 for a secret it does not hold", code)
	}
	spec := f.spec
	spec.stripeSecrets = []string{"REL_STRIPE_NEXT", "REL_STRIPE_SECRET"}
	f.rewrite(t, spec)
	fleetReload(t, f.nodes[0].admin, fleetOpsToken)
	for i, p := range f.nodes {
		testkit.Eventually(t, 20*time.Second, fmt.Sprintf("node %d accepting the new secret", i), func() error {
			code := postSigned(t, p.ingestURL(), stripeNextSecret, fmt.Sprintf("evt_rotation_%d", i))
			return testkit.Check(code == http.StatusOK, "status %d", code)
		})
		if code := postSigned(t, p.ingestURL(), stripeSecret, fmt.Sprintf("evt_rotation_old_%d", i)); code != http.StatusOK {
			t.Errorf("node %d refuses the old secret during the rotation: %d", i, code)
		}
	}
}
