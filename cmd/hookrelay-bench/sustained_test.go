package main

import (
	"bytes"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

func TestSustainedRowKeptUp(t *testing.T) {
	t.Parallel()
	flat := sustainedRow{Driver: "sqlite", Destinations: 4, Offered: 2000, Achieved: 1995, Wanted: 100, Received: 100, Done: 100,
		Samples: []int64{5000, 300, 320, 280, 310, 290, 300, 305}}
	if g := flat.Growth(); g < -20 || g > 20 || !flat.Flat() || !flat.KeptUp() {
		t.Errorf("flat backlog: growth %.1f, flat %t, kept up %t", g, flat.Flat(), flat.KeptUp())
	}
	growing := flat
	growing.Offered = 4000
	growing.Samples = []int64{0, 1000, 2000, 3000, 4000, 5000, 6000, 7000}
	if g := growing.Growth(); g != 1000 || growing.Flat() || growing.KeptUp() {
		t.Errorf("growing backlog: growth %.1f, flat %t, kept up %t", g, growing.Flat(), growing.KeptUp())
	}
	for name, change := range map[string]func(*sustainedRow){
		"slowed ingest": func(r *sustainedRow) { r.Achieved = 1800 },
		"not all done":  func(r *sustainedRow) { r.Done = 99 },
		"a problem":     func(r *sustainedRow) { r.Problems = []string{"3 events not acknowledged"} },
		"too short":     func(r *sustainedRow) { r.Samples = r.Samples[:2] },
	} {
		r := flat
		change(&r)
		if r.KeptUp() {
			t.Errorf("%s: kept up", name)
		}
	}

	rep := &sustainedReport{Runs: []sustainedRow{flat, growing}}
	rep.Runs[1].Offered = 3000
	lower := flat
	lower.Offered = 1000
	rep.Runs = append(rep.Runs, lower)
	b := rep.best()
	if len(b) != 1 || b[0].Offered != 2000 {
		t.Errorf("best = %+v, want 2000/s for sqlite with 4 destinations", b)
	}
	if m := rep.misses(); len(m) != 0 {
		t.Errorf("misses = %v, want none", m)
	}
	rep.Runs = []sustainedRow{lower, growing}
	if m := rep.misses(); len(m) != 1 || !strings.Contains(m[0], "1000 events/s < 2000") {
		t.Errorf("misses = %v, want 1000 < 2000", m)
	}
	var out bytes.Buffer
	rep.print(&out)
	if !strings.Contains(out.String(), "MISSES") || !strings.Contains(out.String(), "highest rate kept up with") {
		t.Errorf("print:\n%s", out.String())
	}
}

// TestDeliveryCosts checks the cost per delivery leased at ingest: a row
// with destinations less the row of its run at its rate with none, per
// destination, set beside the plain client's request of the same run; a
// row without a baseline in its run, or at another rate, has none; with
// several runs the table gives the median and range.
func TestDeliveryCosts(t *testing.T) {
	t.Parallel()
	// perItem over 1 000 events in 1 s: 0.001 of a core is 1 µs each.
	row := func(run, n int, rate, busy, relay, postgres float64) sustainedRow {
		return sustainedRow{Driver: "postgres", Run: run, Destinations: n, Offered: rate, Acked: 1000, CPUOK: true,
			CPU: cpuUse{Cores: 2, Secs: 1, Busy: busy, Relays: relay, Postgres: postgres, Bench: busy - relay - postgres}}
	}
	drain := func(run int, plain float64) drainRow {
		return drainRow{Driver: "postgres", Run: run, Deliveries: 1000, PlainCPUOK: true, RelayCPUOK: true,
			PlainCPU: cpuUse{Cores: 2, Secs: 1, Busy: plain}, RelayCPU: cpuUse{Cores: 2, Secs: 1, Busy: 0.100}}
	}
	r := &sustainedReport{
		Deliver: deliverReport{Drains: []drainRow{drain(0, 0.050), drain(1, 0.040), drain(2, 0.045)}},
		Runs: []sustainedRow{
			row(0, 0, 800, 0.600, 0.200, 0.350), row(0, 4, 800, 1.000, 0.400, 0.430), row(0, 4, 2000, 2.000, 0.5, 0.5),
			row(1, 0, 800, 0.700, 0.200, 0.350), row(1, 4, 800, 1.180, 0.400, 0.490),
			row(2, 4, 800, 1.000, 0.400, 0.430),
		},
	}
	costs := r.deliveryCosts()
	if len(costs) != 2 || costs[0].Leased != -1 {
		t.Fatalf("costs = %+v, want the 800/s rows of runs 1 and 2 alone, with no lease counts", costs)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-6 }
	c := costs[0]
	if !near(c.Busy, 100) || !near(c.Relay, 50) || !near(c.Postgres, 20) || !near(c.Bench, 30) || !near(c.Plain, 50) {
		t.Errorf("run 1's cost = %+v, want busy 100, relay 50, postgres 20, bench 30, plain 50", c)
	}
	if c := costs[1]; c.Run != 1 || !near(c.Busy, 120) || !near(c.Postgres, 35) || !near(c.Plain, 40) {
		t.Errorf("run 2's cost = %+v, want busy 120, postgres 35, plain 40 (its own drain's)", c)
	}
	var out bytes.Buffer
	r.printDeliveryCosts(&out)
	for _, want := range []string{"110 (100–120)", "28 (20–35)", "0.42 (0.33–0.50)", "MISSES postgres: server CPU 28", "MISSES postgres: CPU ratio 0.42"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("print lacks %q:\n%s", want, out.String())
		}
	}

	// With lease counts the table gives the share leased at ingest, and a
	// rate at which the relay fell behind and claimed most deliveries is
	// printed but not checked against the targets.
	r.Runs[1].Leases, r.Runs[4].Leases = leaseCounts{Ingest: 99, Claim: 1}, leaseCounts{Ingest: 97, Claim: 3}
	r.Runs[2].Leases = leaseCounts{Ingest: 5, Claim: 95} // the 2000/s row, given a baseline below
	r.Runs = append(r.Runs, row(0, 0, 2000, 1.000, 0.3, 0.3))
	out.Reset()
	r.printDeliveryCosts(&out)
	for _, want := range []string{"98% (97%–99%)", "MISSES postgres: server CPU 28", "not checked: postgres, N=4, 2000/s: 5% leased at ingest"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("print lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "2000/s) >") || strings.Contains(out.String(), "2000/s) <") {
		t.Errorf("the 2000/s costs, 5%% leased, were checked:\n%s", out.String())
	}
}

func TestParseSustainedFlags(t *testing.T) {
	t.Parallel()
	f, err := parseSustainedFlags(io.Discard, []string{"--driver", "sqlite", "--destinations", "1,4", "--rates", "500, 1500", "--duration", "20s"})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.destinations) != 2 || f.destinations[1] != 4 || len(f.rates) != 2 || f.rates[1] != 1500 ||
		f.duration != 20*time.Second || f.deliver.drivers[0] != "sqlite" {
		t.Errorf("flags = %+v", f)
	}
	for _, args := range [][]string{
		{"--rates", "2000,1000"},
		{"--rates", "0"},
		{"--destinations", "x"},
		{"--destinations", "0,-1"},
		{"--runs", "0"},
		{"--driver", "mysql"},
	} {
		if _, err := parseSustainedFlags(io.Discard, args); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
