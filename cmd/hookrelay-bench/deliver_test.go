package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

func TestParseDeliverFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantErr string
		drivers []string
	}{
		{name: "defaults", drivers: []string{"sqlite", "postgres"}},
		{name: "one driver", args: []string{"--driver", "sqlite"}, drivers: []string{"sqlite"}},
		{name: "bad driver", args: []string{"--driver", "mysql"}, wantErr: "--driver"},
		{name: "zero deliveries", args: []string{"--deliveries", "0"}, wantErr: "positive"},
		{name: "history below base", args: []string{"--history", "100", "--history-base", "1000"}, wantErr: "--history"},
		{name: "no claim check", args: []string{"--history", "0"}, drivers: []string{"sqlite", "postgres"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := parseDeliverFlags(io.Discard, tt.args)
			if !flagsParsed(t, err, tt.wantErr) {
				return
			}
			if strings.Join(f.drivers, ",") != strings.Join(tt.drivers, ",") {
				t.Errorf("drivers %v, want %v", f.drivers, tt.drivers)
			}
		})
	}
}

func TestBodyFeed(t *testing.T) {
	t.Parallel()
	for _, size := range []int{1, 2048, 10000} {
		f := newBodyFeed(size)
		for _, i := range []int64{0, 7, 123456} {
			b := f.body(i)
			if size > 200 && len(b) != size {
				t.Errorf("size %d: body %d has %d bytes", size, i, len(b))
			}
			var ev struct{ ID, Type string }
			if err := json.Unmarshal(b, &ev); err != nil {
				t.Fatalf("body %d is not JSON: %v", i, err)
			}
			if ev.ID != f.providerID(i) || ev.Type != "invoice.paid" {
				t.Errorf("body %d: id %q type %q, want %q", i, ev.ID, ev.Type, f.providerID(i))
			}
			if r := f.Request(i); !bytes.Equal(r.Body, b) || r.Header.Get("Content-Type") != "application/json" {
				t.Errorf("request %d differs from body %d", i, i)
			}
		}
	}
}

func TestNoopDestinationCounts(t *testing.T) {
	t.Parallel()
	d, err := startNoopDestination()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.close)
	post := func(path, id string) {
		req, _ := http.NewRequest(http.MethodPost, d.url+path, strings.NewReader("{}"))
		req.Header.Set("Hookrelay-Event-Id", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	post(plainPath, "a")
	if _, ok := d.firstDelivery(); ok || d.received.Load() != 0 {
		t.Fatal("the plain client's post was counted")
	}
	post(hooksPath, "a")
	d.recording.Store(true)
	post(hooksPath, "b")
	if n := d.received.Load(); n != 2 {
		t.Errorf("received %d, want 2", n)
	}
	if _, ok := d.arrival("a"); ok {
		t.Error("arrival recorded while not recording")
	}
	if at, ok := d.arrival("b"); !ok || time.Since(at) > time.Minute {
		t.Errorf("arrival of b = %v, %v", at, ok)
	}
	d.reset()
	if _, ok := d.firstDelivery(); ok || d.received.Load() != 0 {
		t.Error("reset kept counts")
	}
}

// TestDeliverConfigLoads checks that the relay's config loader accepts the
// file the deliver command writes, with its secrets read from files.
func TestDeliverConfigLoads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	token, extra, err := deliverConfig(dir, []string{"http://127.0.0.1:9/hooks", "http://127.0.0.1:9/hooks/2"}, 32, "1000000/s")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "hookrelay.yaml")
	c := relayConfig{Database: "sqlite:" + filepath.Join(dir, "x.db"), LogLevel: "warn", Extra: extra}
	if err := os.WriteFile(path, []byte(relayproc.ConfigYAML(c.Database, "127.0.0.1:0", "127.0.0.1:0", c.yaml())), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, func(name string) string {
		if name == secretEnv {
			return "whsec_c2VjcmV0"
		}
		return os.Getenv(name)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Tokens) != 1 || cfg.Tokens[0].Secret != token {
		t.Errorf("tokens %+v, want the admin token from its file", cfg.Tokens)
	}
	if len(cfg.Destinations) != 2 || cfg.Destinations[0].Concurrency != 32 || cfg.Destinations[0].URL != "http://127.0.0.1:9/hooks" || cfg.Destinations[1].Name != "noop2" {
		t.Errorf("destinations %+v", cfg.Destinations)
	}
}

func TestDeliverReportTargets(t *testing.T) {
	t.Parallel()
	// perItem over 1 000 deliveries in 1 s: 0.001 of a core is 1 µs each.
	cpu := func(busy, postgres float64) cpuUse { return cpuUse{Cores: 2, Secs: 1, Busy: busy, Postgres: postgres} }
	r := &deliverReport{
		Drains: []drainRow{
			{Driver: "sqlite", Relay: 100, Plain: 1000, Deliveries: 1000, PlainCPU: cpu(0.040, 0), RelayCPU: cpu(0.100, 0), PlainCPUOK: true, RelayCPUOK: true},
			{Driver: "postgres", Relay: 700, Plain: 1000, Deliveries: 1000, PlainCPU: cpu(0.040, 0), RelayCPU: cpu(0.060, 0.030), PlainCPUOK: true, RelayCPUOK: true},
		},
		Latencies: []latencyRow{{Driver: "sqlite", Latency: loadgen.Summary{P50: 400 * time.Millisecond}}, {Driver: "postgres", Latency: loadgen.Summary{P50: 500 * time.Microsecond}}},
		Claims:    []claimRow{{History: 10, Claims: loadgen.Summary{P50: time.Millisecond}}, {History: 20, Claims: loadgen.Summary{P50: 2 * time.Millisecond}}},
	}
	got := strings.Join(r.misses(), "\n")
	for _, want := range []string{"sqlite: drain ratio 0.10", "sqlite: drain CPU ratio 0.40 < 0.70", "postgres: server CPU 30 µs per drained delivery > 25",
		"sqlite: latency p50 400ms", "claim p50 grew 2.00x"} {
		if !strings.Contains(got, want) {
			t.Errorf("misses %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "postgres: drain") || strings.Contains(got, "postgres: latency") {
		t.Errorf("misses %q name a met target", got)
	}
	if r.failed() {
		t.Error("missed targets alone fail the run")
	}
	r.Latencies[0].Missing = 1
	if !r.failed() {
		t.Error("a lost event does not fail the run")
	}
	var out bytes.Buffer
	r.print(&out)
	if !strings.Contains(out.String(), "MISSES") {
		t.Errorf("print:\n%s", out.String())
	}
}

// TestDestinationRateFlag checks that the destinations have no rate
// unless --destination-rate gives one, and that one the config would
// refuse is refused.
func TestDestinationRateFlag(t *testing.T) {
	t.Parallel()
	f, err := parseDeliverFlags(io.Discard, nil)
	if err != nil || f.rate != "" {
		t.Fatalf("default flags: rate %q, %v; want none", f.rate, err)
	}
	_, extra, err := deliverConfig(t.TempDir(), []string{"http://127.0.0.1:9/hooks"}, 32, f.rate)
	if err != nil || strings.Contains(extra, "rate:") {
		t.Errorf("config without a rate: %v\n%s", err, extra)
	}
	if f, err = parseDeliverFlags(io.Discard, []string{"--destination-rate", "1000000/s"}); err != nil || f.rate != "1000000/s" {
		t.Errorf("--destination-rate 1000000/s: %q, %v", f.rate, err)
	}
	if _, err := parseDeliverFlags(io.Discard, []string{"--destination-rate", "fast"}); !errors.Is(err, errUsage) {
		t.Errorf("--destination-rate fast: %v, want a usage error", err)
	}
}
