package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"strings"
	"testing"
	"time"
)

// TestRunPacedPlain runs the paced plain client against the no-op
// destination: every request is answered, none counts as a delivery, the
// pace holds the count near rate × duration, and the CPU per request is
// read.
func TestRunPacedPlain(t *testing.T) {
	t.Parallel()
	dest, err := startNoopDestination()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dest.close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const rate, d = 200.0, time.Second
	p, err := runPacedPlain(ctx, io.Discard, dest, 2048, 8, rate, d)
	if err != nil {
		t.Fatal(err)
	}
	// Paced, the client sends no more than the rate allows, whatever the
	// machine; a loaded machine may send fewer.
	if p.Requests < 1 || p.Requests > int64(rate*d.Seconds())+1 || p.Rate != rate {
		t.Errorf("paced run = %+v, want at most %.0f requests at %.0f/s", p, rate*d.Seconds()+1, rate)
	}
	if n := dest.received.Load(); n != 0 {
		t.Errorf("the destination counted %d deliveries from the plain client", n)
	}
	if _, ok := p.perRequest(); !ok && p.CPUOK {
		t.Errorf("perRequest not ok for a measured run: %+v", p)
	}
}

// TestPacedPlainBesideDeliveryCost checks that a row's paced plain run
// sits beside its delivery cost and in the table, its ratio over the
// delivery's cost, and that the run lasts a quarter of the sustained run
// within 5 and 15 s.
func TestPacedPlainBesideDeliveryCost(t *testing.T) {
	t.Parallel()
	row := func(n int, busy float64) sustainedRow {
		return sustainedRow{Driver: "sqlite", Destinations: n, Offered: 1000, Acked: 1000, CPUOK: true,
			CPU: cpuUse{Cores: 2, Secs: 1, Busy: busy, Relays: busy / 2, Bench: busy / 2}}
	}
	with := row(4, 0.600)
	// 4 000 requests in 2 s at 0.1 core of this process: 50 µs each.
	with.Plain = pacedPlain{Rate: 4000, Requests: 4000, CPUOK: true, CPU: cpuUse{Cores: 2, Secs: 2, Busy: 0.3, Bench: 0.1}}
	r := &sustainedReport{Runs: []sustainedRow{row(0, 0.200), with}}
	costs := r.deliveryCosts()
	if len(costs) != 1 {
		t.Fatalf("costs = %+v, want one", costs)
	}
	c := costs[0]
	if math.Abs(c.Busy-100) > 1e-6 || math.Abs(c.PlainAtRate-50) > 1e-6 || math.Abs(c.RatioAtRate()-0.5) > 1e-6 {
		t.Errorf("cost = %+v, ratio at rate %.2f; want busy 100, paced plain 50, ratio 0.50", c, c.RatioAtRate())
	}
	var out bytes.Buffer
	r.printDeliveryCosts(&out)
	if !strings.Contains(out.String(), "paced ÷ busy") || !strings.Contains(out.String(), "0.50") {
		t.Errorf("print lacks the paced ratio:\n%s", out.String())
	}
	for _, tc := range []struct{ sustained, want time.Duration }{
		{10 * time.Second, 5 * time.Second}, {30 * time.Second, 7500 * time.Millisecond}, {60 * time.Second, 15 * time.Second}, {10 * time.Minute, 15 * time.Second},
	} {
		if got := pacedPlainDuration(tc.sustained); got != tc.want {
			t.Errorf("pacedPlainDuration(%v) = %v, want %v", tc.sustained, got, tc.want)
		}
	}
}
