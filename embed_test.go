package hookrelay_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/hookrelay/hookrelay"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// destinationSecret signs what a push or pull destination of the tests
// receives.
const destinationSecret = "whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// withFile returns an edit of setupWith's Config: a configuration file
// that declares the stripe source and extra, in place of setup's, and the
// admin token given in code, in Config.Tokens.
func withFile(t *testing.T, extra string) func(c *hookrelay.Config) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "hookrelay.yaml")
	yaml := "sources:\n  - {name: stripe, verify: stripe, secrets: [\"" + stripeSecret + "\"]}\n" + extra
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return func(c *hookrelay.Config) {
		c.File, c.Sources = file, nil
		c.Tokens = append(c.Tokens, hookrelay.Token{Name: "test", Role: hookrelay.RoleAdmin, Secret: adminToken})
	}
}

// TestRegistererReceivesMetrics gives the Relay the application's own
// registry: once an event is handled, the registry holds hookrelay's
// counts, every name starting with hookrelay_ and none of the Go
// runtime's (the application registers those itself); Admin's /metrics
// still serves them. Shutdown unregisters them, so that another Relay can
// use the registry, while a Relay given a registry another one uses
// refuses to start.
func TestRegistererReceivesMetrics(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector()) // the application's own
		b := setupWith(t, drv.URL(t), func(c *hookrelay.Config) { c.Registerer = reg }, func(r *hookrelay.Relay) {
			r.Handle(orders(3), func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
				return insertEffect(ctx, tx, ev, "counted")
			})
		})
		b.mustPost(t, stripeEvent("evt_metrics", "checkout.session.completed", "ord_40", time.Now()))
		waitDelivery(t, b.relay, "evt_metrics", "orders", hookrelay.StatusDone)

		done := `hookrelay_deliveries_total{destination="orders",outcome="done"} 1`
		got := gathered(t, reg)
		if !strings.Contains(got, done) || !strings.Contains(got, "hookrelay_ingest_requests_total{") || !strings.Contains(got, "go_goroutines ") {
			t.Errorf("the application's registry lacks %s, the ingest counts or its own metrics:\n%s", done, got)
		}
		for line := range strings.Lines(got) {
			if name, _, _ := strings.Cut(line, "{"); !strings.HasPrefix(name, "hookrelay_") && !strings.HasPrefix(name, "go_") {
				t.Errorf("the application's registry holds %q", strings.TrimSpace(line))
			}
		}
		scraped := get(t, http.DefaultClient, b.admin+"/metrics")
		if !strings.Contains(scraped, done) || !strings.Contains(scraped, "process_start_time_seconds") {
			t.Errorf("Admin's /metrics lacks %s or the process's metrics", done)
		}

		other, err := hookrelay.New(hookrelay.Config{Database: testdb.SQLiteURL(t), Registerer: reg})
		if err != nil {
			t.Fatal(err)
		}
		if err := other.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "registerer") {
			t.Errorf("a second Relay on the registry: Start = %v, want a refusal naming the registerer", err)
			_ = other.Close()
		}

		b.close()
		if got := gathered(t, reg); strings.Contains(got, "hookrelay_") {
			t.Errorf("after Shutdown the registry still holds hookrelay's metrics:\n%s", got)
		}
		again := setupWith(t, testdb.SQLiteURL(t), func(c *hookrelay.Config) { c.Registerer = reg }, func(*hookrelay.Relay) {})
		again.close()
	})
}

// gathered returns what reg gathers, one sample a line, as /metrics
// writes a counter's or a gauge's: name{label="value",...} value.
func gathered(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := make([]string, len(m.GetLabel()))
			for i, l := range m.GetLabel() {
				labels[i] = fmt.Sprintf("%s=%q", l.GetName(), l.GetValue())
			}
			name := f.GetName()
			if len(labels) > 0 {
				name += "{" + strings.Join(labels, ",") + "}"
			}
			fmt.Fprintf(&b, "%s %v\n", name, m.GetCounter().GetValue()+m.GetGauge().GetValue())
		}
	}
	return b.String()
}

// TestTokensInCode opens the admin API with tokens given in
// Config.Tokens alone: a read token reads and may not replay, an unknown
// one is refused; with the console disabled, its pages are not found
// while the API still answers. A token without a secret is refused.
func TestTokensInCode(t *testing.T) {
	t.Parallel()
	const readSecret = "tok_read_0123456789abcdef0123456789"
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		b := setupWith(t, drv.URL(t), func(c *hookrelay.Config) {
			c.File = ""
			c.Tokens = []hookrelay.Token{{Name: "dashboard", Role: hookrelay.RoleRead, Secret: readSecret}}
			c.DisableConsole = true
		}, func(*hookrelay.Relay) {})
		call := func(method, path, token string) int {
			req, err := http.NewRequest(method, b.admin+path, strings.NewReader(`{"source":"stripe"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		for _, c := range []struct {
			method, path, token string
			want                int
		}{
			{http.MethodGet, "/api/v1/stats", readSecret, http.StatusOK},
			{http.MethodPost, "/api/v1/replay", readSecret, http.StatusForbidden},
			{http.MethodGet, "/api/v1/stats", adminToken, http.StatusUnauthorized}, // the file setup writes is not read
			{http.MethodGet, "/", readSecret, http.StatusNotFound},
			{http.MethodGet, "/healthz", "", http.StatusOK},
		} {
			if got := call(c.method, c.path, c.token); got != c.want {
				t.Errorf("%s %s: status %d, want %d", c.method, c.path, got, c.want)
			}
		}
	})

	_, err := hookrelay.New(hookrelay.Config{Database: testdb.SQLiteURL(t), Tokens: []hookrelay.Token{{Name: "ops", Role: hookrelay.RoleAdmin}}})
	if err == nil || !strings.Contains(err.Error(), "Tokens[0]") {
		t.Errorf("New with a token without a secret: %v, want a refusal naming it", err)
	}
	_, err = hookrelay.New(hookrelay.Config{Database: testdb.SQLiteURL(t), Tokens: []hookrelay.Token{{Name: "ops", Role: "root", Secret: readSecret}}})
	if err == nil || !strings.Contains(err.Error(), "role") {
		t.Errorf("New with a token of no role: %v, want a refusal naming the role", err)
	}
}
