package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
)

func TestCheckStored(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                    string
		stored, acked, unknown  int64
		wantProblem, wantIsNote bool
	}{
		{name: "equal", stored: 100, acked: 100},
		{name: "not counted", stored: -1, acked: 100},
		{name: "lost", stored: 99, acked: 100, wantProblem: true},
		{name: "extra explained by unanswered", stored: 102, acked: 100, unknown: 2},
		{name: "extra unexplained", stored: 103, acked: 100, unknown: 2, wantProblem: true, wantIsNote: true},
	}
	for _, tt := range tests {
		got := checkStored(tt.stored, tt.acked, tt.unknown)
		if (len(got) > 0) != tt.wantProblem {
			t.Errorf("%s: problems %q", tt.name, got)
			continue
		}
		if tt.wantProblem && strings.HasPrefix(got[0], "note:") != tt.wantIsNote {
			t.Errorf("%s: problem %q, note %v", tt.name, got[0], tt.wantIsNote)
		}
	}
}

func TestErrorSummary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		statuses map[int]int64
		errs     int64
		want     string
	}{
		{nil, 0, "0"},
		{map[int]int64{503: 4, 400: 1}, 0, "400:1 503:4"},
		{map[int]int64{503: 4}, 2, "503:4 err:2"},
	}
	for _, tt := range tests {
		if got := errorSummary(tt.statuses, tt.errs); got != tt.want {
			t.Errorf("errorSummary(%v, %d) = %q, want %q", tt.statuses, tt.errs, got, tt.want)
		}
	}
}

// result returns a Result of n 200s in a 1s window with the given p99.
func result(n int64, p99 time.Duration) loadgen.Result {
	return loadgen.Result{Sent: n, Acked: n, MeasuredAcked: n, Window: time.Second, Latency: loadgen.Summary{P50: time.Millisecond, P99: p99, Max: p99}}
}

func TestIngestReportJudge(t *testing.T) {
	t.Parallel()
	rep := &ingestReport{Senders: 32, Body: 2048, Duration: time.Second}
	rep.add(ingestRow{Target: "noop", Driver: "-", Result: result(10000, 5*time.Millisecond), Stored: -1})
	rep.add(ingestRow{Target: "relay", Driver: "sqlite", LogLevel: "warn", Result: result(5000, 10*time.Millisecond), Stored: 5000})
	rep.add(ingestRow{Target: "relay", Driver: "postgres", LogLevel: "warn", Result: result(2000, 30*time.Millisecond), Stored: 2000})
	rep.add(ingestRow{Target: "relay", Driver: "sqlite", LogLevel: "info", Result: result(4500, 10*time.Millisecond), Stored: 4400})
	rep.judge()

	want := []struct {
		ratio    float64
		misses   int
		problems int
	}{{0, 0, 0}, {0.5, 0, 0}, {0.2, 2, 0}, {0.45, 0, 1}}
	for i, w := range want {
		row := rep.Rows[i]
		if row.Ratio != w.ratio || len(row.Misses) != w.misses || len(row.Problems) != w.problems {
			t.Errorf("row %d: ratio %v misses %q problems %q; want %v, %d, %d", i, row.Ratio, row.Misses, row.Problems, w.ratio, w.misses, w.problems)
		}
	}
	if !rep.failed(false) {
		t.Error("a report with lost events did not fail")
	}
	var out bytes.Buffer
	if err := rep.print(&out, false); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"0.50", "postgres/warn: MISSES ratio 0.20 < 0.30, p99 30ms > 25ms", "LOST EVENTS: 4500 acknowledged, 4400 stored", "sqlite/warn: meets targets"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
	out.Reset()
	if err := rep.print(&out, true); err != nil || !strings.Contains(out.String(), `"ratio_to_noop": 0.5`) {
		t.Errorf("JSON %v:\n%s", err, out.String())
	}
}
