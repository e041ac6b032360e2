package deploy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

const stripeSecret = "whsec_ZGVwbG95LW1ldHJpY3M="

// metricName matches the relay's metric names inside a PromQL expression.
var metricName = regexp.MustCompile(`\bhookrelay_[a-z0-9_]+`)

// sharedGauges are the series every process exports alike, read from the
// database: summed across the nodes of a fleet, they count each delivery
// once per node.
var sharedGauges = []string{"hookrelay_deliveries", "hookrelay_delivery_oldest_pending_age_seconds"}

// TestRulesAndDashboardDoNotSumSharedGauges checks that every expression of
// the alerting rules and the dashboard that reads a shared gauge takes
// the max (or min) of it first, by labels that leave out the instance,
// before any sum.
func TestRulesAndDashboardDoNotSumSharedGauges(t *testing.T) {
	t.Parallel()
	exprs := append(ruleExprs(t, "prometheus-rules.yaml"), dashboardExprs(t, "grafana-dashboard.json")...)
	read := 0
	for _, g := range sharedGauges {
		// The gauge's innermost aggregation is the one right before it.
		inner := regexp.MustCompile(`(\w+)(?:\s+by\s*\([^)]*\))?\s*\(\s*` + g + `\b`)
		reads := regexp.MustCompile(`\b` + g + `\b`)
		for _, e := range exprs {
			if !reads.MatchString(e) {
				continue
			}
			read++
			for _, m := range inner.FindAllStringSubmatch(e, -1) {
				if m[1] != "max" && m[1] != "min" {
					t.Errorf("%s is aggregated with %s in %q: every node exports the database's value, take its max first", g, m[1], e)
				}
			}
			if !inner.MatchString(e) {
				t.Errorf("%s is read without an aggregation in %q: every node exports the database's value, take its max", g, e)
			}
		}
	}
	if read == 0 {
		t.Error("no rule or panel reads a shared gauge")
	}
}

// TestRulesAndDashboardUseExportedMetrics runs a relay with every part that
// exports metrics (ingest, a push destination, alerts), gives each a
// request, scrapes /metrics, and checks that every metric the alerting
// rules and the dashboard query is one the relay exports.
func TestRulesAndDashboardUseExportedMetrics(t *testing.T) {
	t.Parallel()
	exported := exportedFamilies(t)
	for file, exprs := range map[string][]string{
		"prometheus-rules.yaml":  ruleExprs(t, "prometheus-rules.yaml"),
		"grafana-dashboard.json": dashboardExprs(t, "grafana-dashboard.json"),
	} {
		used := map[string]bool{}
		for _, e := range exprs {
			for _, name := range metricName.FindAllString(e, -1) {
				used[name] = true
			}
		}
		if len(used) == 0 {
			t.Errorf("%s queries no hookrelay metric", file)
		}
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for n := range used {
				if !yield(n) {
					return
				}
			}
		}) {
			if !isExported(exported, name) {
				t.Errorf("%s queries %s, which the relay does not export", file, name)
			}
		}
	}
}

// isExported reports whether name is an exported family, or a histogram's
// _bucket, _sum or _count series.
func isExported(families map[string]string, name string) bool {
	if _, ok := families[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && (families[base] == "histogram" || (suffix != "_bucket" && families[base] == "summary")) {
			return true
		}
	}
	return false
}

// exportedFamilies runs a relay, sends it one verified event and two
// forged ones, lets one delivery go dead, and returns the metric families
// its /metrics lists, by name, with their types.
func exportedFamilies(t *testing.T) map[string]string {
	t.Helper()
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }))
	defer sink.Close()
	cfgText := fmt.Sprintf(`database: sqlite:./hookrelay.db
listen: 127.0.0.1:0
admin_listen: 127.0.0.1:0
sources:
  - {name: stripe, verify: stripe, secrets: [%q]}
destinations:
  - {name: billing, url: %q, secret: "whsec_YmlsbGluZw==", sources: [stripe], max_attempts: 1}
alerts:
  url: %q
  signature_failures: {rate: 1/m, window: 1m}
`, stripeSecret, sink.URL+"/billing", sink.URL+"/alerts")
	cfg, err := config.Parse([]byte(cfgText), t.TempDir(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	r, err := relay.New(context.Background(), cfg, relay.RoleAll, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Shutdown(context.Background()) }()

	body := fmt.Appendf(nil, `{"id":"evt_1","type":"invoice.paid","created":%d}`, time.Now().Unix())
	if code := postStripe(t, r.PublicAddr(), stripeSecret, body); code != 200 {
		t.Fatalf("signed event: %d", code)
	}
	for range 2 {
		if code := postStripe(t, r.PublicAddr(), "whsec_Zm9yZ2VkLXNlY3JldA==", body); code != 401 {
			t.Fatalf("forged event: %d", code)
		}
	}
	var families map[string]string
	testkit.Eventually(t, 20*time.Second, "a dead letter in /metrics", func() error {
		families = scrapeFamilies(t, r.AdminAddr())
		text := families["\x00text"]
		delete(families, "\x00text")
		return testkit.Check(strings.Contains(text, `hookrelay_dead_letters_total{destination="billing"} 1`), "\n%s", text)
	})
	return families
}

func postStripe(t *testing.T, addr, secret string, body []byte) int {
	t.Helper()
	h, err := signature.Sign(signature.Options{Scheme: "stripe", Secrets: []string{secret}}, 0, signature.Message{Body: body})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/webhooks/stripe", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// scrapeFamilies returns the families of one scrape by name, with their
// types, and the whole text under the key "\x00text".
func scrapeFamilies(t *testing.T, addr string) map[string]string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]string{"\x00text": string(text)}
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			families[f[2]] = f[3]
		}
	}
	return families
}

// ruleExprs returns every rule's expression in a Prometheus rules file.
func ruleExprs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []struct {
				Expr string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			out = append(out, r.Expr)
		}
	}
	return out
}

// dashboardExprs returns every "expr" and templating "query" string in a
// Grafana dashboard, however deeply nested.
func dashboardExprs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if s, ok := c.(string); ok && (k == "expr" || k == "query" || k == "definition") {
					out = append(out, s)
				}
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	return out
}
