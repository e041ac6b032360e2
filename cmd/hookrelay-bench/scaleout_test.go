package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
	"github.com/hookrelay/hookrelay/internal/testkit/proccpu"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

func TestParseScaleoutFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		args               []string
		wantErr            string
		workers, receivers []int
	}{
		{name: "defaults", workers: []int{1, 2, 4}, receivers: []int{1, 2}},
		{name: "lists", args: []string{"--workers", "1, 3", "--receivers", "2"}, workers: []int{1, 3}, receivers: []int{2}},
		{name: "no drain", args: []string{"--deliveries", "0"}, workers: []int{1, 2, 4}, receivers: []int{1, 2}},
		{name: "no ingest", args: []string{"--duration", "0s"}, workers: []int{1, 2, 4}, receivers: []int{1, 2}},
		{name: "nothing to measure", args: []string{"--deliveries", "0", "--duration", "0s"}, wantErr: "nothing to measure"},
		{name: "zero workers", args: []string{"--workers", "1,0"}, wantErr: "--workers"},
		{name: "bad receivers", args: []string{"--receivers", "two"}, wantErr: "--receivers"},
		{name: "empty workers", args: []string{"--workers", ""}, wantErr: "--workers"},
		{name: "zero senders", args: []string{"--senders", "0"}, wantErr: "positive"},
		{name: "negative deliveries", args: []string{"--deliveries", "-1"}, wantErr: "positive"},
		{name: "stray argument", args: []string{"extra"}, wantErr: "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := parseScaleoutFlags(io.Discard, tt.args)
			if !flagsParsed(t, err, tt.wantErr) {
				return
			}
			if !slices.Equal(f.workers, tt.workers) || !slices.Equal(f.receivers, tt.receivers) {
				t.Errorf("workers %v receivers %v, want %v and %v", f.workers, f.receivers, tt.workers, tt.receivers)
			}
		})
	}
}

func TestScaleoutUsageExitCode(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if got := run(context.Background(), &stdout, &stderr, []string{"scaleout", "--workers", "x"}); got != 2 {
		t.Fatalf("exit %d, want 2; stderr:\n%s", got, stderr.String())
	}
}

func TestScaleoutReport(t *testing.T) {
	t.Parallel()
	cpu := cpuUse{Cores: 2, Busy: 1.9, Relays: 0.8, Bench: 0.2, Postgres: 0.8, Other: 0.1}
	r := &scaleoutReport{
		Deliveries: 1000, Concurrency: 32, Body: 2048, Senders: 32, Duration: 10 * time.Second,
		Drains: []scaleoutDrainRow{
			{Workers: 1, Drain: time.Second, Rate: 1000, CPU: cpu, CPUOK: true, Load: "1.00 1.00 1.00"},
			{Workers: 2, Drain: time.Second / 2, Rate: 1500, Ramp: 20 * time.Millisecond, Load: "1.50 1.00 1.00",
				Problems: []string{"note: 1001 deliveries arrived for 1000 events"}},
		},
		Ingests: []scaleoutIngestRow{
			{Receivers: 1, Rate: 2000, Stored: 20000, Result: loadgen.Result{Acked: 20000}, Load: "2.00 1.00 1.00"},
			{Receivers: 2, Rate: 1000, Stored: 10000, Result: loadgen.Result{Acked: 10000}, CPU: cpu, CPUOK: true},
		},
	}
	if r.failed() {
		t.Error("a note fails the run")
	}
	var out bytes.Buffer
	r.print(&out)
	got := out.String()
	for _, want := range []string{
		"workers", "deliveries/s", "vs 1", "1.50", "1.00 1.00 1.00", "1.90/2", // drain table, ratio 1500/1000, load, cpu
		"receivers", "events/s", "0.50", "20000/20000", "2.00 1.00 1.00", // ingest table, ratio 1000/2000
		"limit at 2 receivers: 95% of 2 cores busy", "cores are saturated", "note: 1001 deliveries",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "limit at 2 workers") {
		t.Errorf("limit named for a row without CPU figures:\n%s", got)
	}
	r.Ingests[1].CPU.Busy = 1.7
	if l := r.limit(); !strings.Contains(l, "85% of 2 cores busy") || !strings.Contains(l, "nearly saturated") {
		t.Errorf("limit %q at 85%% busy", l)
	}
	r.Ingests[1].CPU.Busy = 1
	if l := r.limit(); !strings.Contains(l, "not saturated") {
		t.Errorf("limit %q at 50%% busy", l)
	}
	r.Ingests[1].Problems = append(r.Ingests[1].Problems, checkStored(9999, 10000, 0)...)
	if !r.failed() {
		t.Error("a lost event does not fail the run")
	}
}

func TestRoundRobinClient(t *testing.T) {
	t.Parallel()
	var hits [2]atomic.Int64
	addrs := make([]string, 2)
	for i := range hits {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits[i].Add(1)
			w.WriteHeader(http.StatusOK)
		}))
		t.Cleanup(srv.Close)
		addrs[i] = strings.TrimPrefix(srv.URL, "http://")
	}
	c := roundRobinClient(addrs, 2)
	t.Cleanup(c.CloseIdleConnections)
	for range 6 {
		// The URL's host is never dialled: every request goes to addrs.
		resp, err := c.Post("http://127.0.0.1:9/webhooks/stripe", "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	if hits[0].Load() != 3 || hits[1].Load() != 3 {
		t.Errorf("hits %d and %d, want 3 each", hits[0].Load(), hits[1].Load())
	}
}

func TestCPUMeter(t *testing.T) {
	t.Parallel()
	if _, _, err := machineTicks(); err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	m := startCPU([]int{os.Getpid()}, "")
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
	}
	u, ok := m.stop()
	if !ok {
		t.Fatal("no CPU figures")
	}
	// The relay measured is this process, read just before "self": a
	// clock tick may fall between the two readings at either end.
	tick := 1 / float64(proccpu.ClockTicks) / u.Secs
	if u.Cores < 1 || u.Busy <= 0 || u.Bench <= 0 || math.Abs(u.Relays-u.Bench) > 2*tick+1e-9 || u.Other < 0 {
		t.Errorf("use %+v", u)
	}
}

// TestScaleoutEndToEnd runs the whole command with tiny sizes against the
// PostgreSQL server of HOOKRELAY_TEST_POSTGRES_URL.
func TestScaleoutEndToEnd(t *testing.T) {
	url := os.Getenv(testdb.PostgresURLEnv)
	if url == "" {
		t.Skipf("%s is not set", testdb.PostgresURLEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	binary, err := relayproc.Build(ctx, t.TempDir(), "github.com/hookrelay/hookrelay/cmd/hookrelay")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"scaleout", "--postgres-url", url, "--binary", binary, "--deliveries", "300", "--workers", "1,2",
		"--receivers", "1", "--duration", "1s", "--warmup", "0s", "--senders", "4", "--prebuild", "500", "--body", "512"}
	if code := run(ctx, &stdout, &stderr, args); code != 0 {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"drain on PostgreSQL: 300 pending", "deliveries/s", "ingest on PostgreSQL", "events/s", "limit at 2 workers"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("\n%s", out)
}
