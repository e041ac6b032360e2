package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
)

// Targets the deliver benchmark checks, on a 2-core machine.
const (
	// minDeliverRatio is the least drain rate, as a share of the plain
	// client's rate in the same run.
	minDeliverRatio = 0.6
	maxLatencyP50   = time.Millisecond
	maxClaimGrowth  = 1.5
	// maxPostgresPerDelivery is the most CPU, in µs, the PostgreSQL
	// server may spend on one successful delivery.
	maxPostgresPerDelivery = 25
)

// minCPURatio is, per driver, the least plain request's CPU over a
// delivery's: a delivery may cost at most 1/minCPURatio plain requests.
var minCPURatio = map[string]float64{"sqlite": 0.7, "postgres": 0.6}

// drainRow is one driver's drain of prepared deliveries and the plain
// client's run on the same bodies and destination.
type drainRow struct {
	Driver     string
	Run        int // which run of several (sustained --runs), from 0
	Deliveries int64
	// Prepare is how long storing the pending deliveries took.
	Prepare time.Duration
	// Drain runs from the first delivery's arrival to the stats counting
	// every delivery done.
	Drain    time.Duration
	Received int64
	// Relay and Plain are deliveries (requests) per second.
	Relay, Plain float64
	// LoadPlain and LoadRelay are the load averages when each run began.
	LoadPlain, LoadRelay string
	// PlainCPU is the machine's CPU use while the plain client ran, and
	// RelayCPU while the relay started and drained; each OK is false where
	// it could not be read.
	PlainCPU, RelayCPU     cpuUse
	PlainCPUOK, RelayCPUOK bool
	Problems               []string
}

// Ratio is the relay's rate over the plain client's.
func (r drainRow) Ratio() float64 {
	if r.Plain == 0 {
		return 0
	}
	return r.Relay / r.Plain
}

// cpuPerDelivery returns, in µs, the plain client's CPU per request and
// the relay run's per delivery: the machine's, the relay's, the
// PostgreSQL server's and the destination's. ok is false where either run
// could not be measured.
func (r drainRow) cpuPerDelivery() (plain, run, relay, postgres, destination float64, ok bool) {
	if !r.PlainCPUOK || !r.RelayCPUOK {
		return 0, 0, 0, 0, 0, false
	}
	p, u := r.PlainCPU, r.RelayCPU
	return p.perItem(p.Busy, r.Deliveries), u.perItem(u.Busy, r.Deliveries), u.perItem(u.Relays, r.Deliveries),
		u.perItem(u.Postgres, r.Deliveries), u.perItem(u.Bench, r.Deliveries), true
}

// latencyRow is one driver's ingest-to-delivery latency on an idle relay.
type latencyRow struct {
	Driver  string
	Events  int
	Gap     time.Duration
	Latency loadgen.Summary
	// Refused counts posts not answered 200; Missing the events answered
	// 200 that did not arrive in time.
	Refused, Missing int
	Load             string
	// CPU is the machine's CPU use while the events were posted and
	// delivered; CPUOK is false where it could not be read.
	CPU   cpuUse
	CPUOK bool
	// Leases counts the deliveries leased at ingest and by claims while
	// the events were posted and delivered.
	Leases leaseCounts
}

// cpuPerEvent returns the relay's and the PostgreSQL server's CPU time
// per event posted and delivered, in µs, or "-" when not measured.
func (l latencyRow) cpuPerEvent() (relay, postgres string) {
	n := int64(l.Latency.Count)
	if !l.CPUOK || n == 0 {
		return "-", "-"
	}
	return fmt.Sprintf("%.0f", l.CPU.perItem(l.CPU.Relays, n)), fmt.Sprintf("%.0f", l.CPU.perItem(l.CPU.Postgres, n))
}

// claimRow is the claim's cost behind one amount of history.
type claimRow struct {
	History int64
	Seed    time.Duration
	Claims  loadgen.Summary
	Load    string
}

// deliverReport is the deliver command's output.
type deliverReport struct {
	Deliveries  int
	Concurrency int
	Body        int
	Drains      []drainRow
	Latencies   []latencyRow
	Claims      []claimRow
}

// misses lists the targets missed, one line each.
func (r *deliverReport) misses() []string {
	var m []string
	for _, d := range r.Drains {
		if d.Ratio() < minDeliverRatio {
			m = append(m, fmt.Sprintf("%s: drain ratio %.2f < %.2f", d.Driver, d.Ratio(), minDeliverRatio))
		}
		if plain, run, _, pg, _, ok := d.cpuPerDelivery(); ok {
			if plain/run < minCPURatio[d.Driver] {
				m = append(m, fmt.Sprintf("%s: drain CPU ratio %.2f < %.2f", d.Driver, plain/run, minCPURatio[d.Driver]))
			}
			if d.Driver == "postgres" && pg > maxPostgresPerDelivery {
				m = append(m, fmt.Sprintf("postgres: server CPU %.0f µs per drained delivery > %d", pg, maxPostgresPerDelivery))
			}
		}
	}
	for _, l := range r.Latencies {
		if l.Latency.P50 > maxLatencyP50 {
			m = append(m, fmt.Sprintf("%s: latency p50 %v > %v", l.Driver, roundDur(l.Latency.P50), maxLatencyP50))
		}
	}
	if g, ok := r.claimGrowth(); ok && g > maxClaimGrowth {
		m = append(m, fmt.Sprintf("postgres: claim p50 grew %.2fx > %.1fx", g, maxClaimGrowth))
	}
	return m
}

// claimGrowth is the last claim median over the first.
func (r *deliverReport) claimGrowth() (float64, bool) {
	if len(r.Claims) < 2 || r.Claims[0].Claims.P50 <= 0 {
		return 0, false
	}
	return float64(r.Claims[len(r.Claims)-1].Claims.P50) / float64(r.Claims[0].Claims.P50), true
}

// failed reports a problem other than a note, or a lost latency event.
func (r *deliverReport) failed() bool {
	for _, d := range r.Drains {
		for _, p := range d.Problems {
			if !strings.HasPrefix(p, "note:") {
				return true
			}
		}
	}
	for _, l := range r.Latencies {
		if l.Refused > 0 || l.Missing > 0 {
			return true
		}
	}
	return false
}

func (r *deliverReport) print(w io.Writer) {
	fmt.Fprintf(w, "drain: %d pending deliveries to a no-op destination, concurrency %d, body %d B\n",
		r.Deliveries, r.Concurrency, r.Body)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "driver\tprepare\tdrain\trelay/s\tplain/s\tratio\tload at plain\tload at relay\t")
	for _, d := range r.Drains {
		fmt.Fprintf(tw, "%s\t%v\t%v\t%.0f\t%.0f\t%.2f\t%s\t%s\t\n", d.Driver, d.Prepare.Round(100*time.Millisecond),
			d.Drain.Round(10*time.Millisecond), d.Relay, d.Plain, d.Ratio(), d.LoadPlain, d.LoadRelay)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "drain: from the first delivery's arrival until /api/v1/stats counts all done; plain: net/http client, same bodies, same destination, same concurrency")
	r.printCPU(w)

	if len(r.Latencies) > 0 {
		l0 := r.Latencies[0]
		fmt.Fprintf(w, "\ningest-to-delivery latency on the idle relay: %d events %v apart, from the 200 answer to the destination's receipt\n", l0.Events, l0.Gap)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "driver\tevents\tmin\tp50\tp90\tp99\tmax\trefused\tmissing\tleased at ingest\trelay µs/event\tpostgres µs/event\tload\t")
		for _, l := range r.Latencies {
			s := l.Latency
			relay, pg := l.cpuPerEvent()
			fmt.Fprintf(tw, "%s\t%d\t%v\t%v\t%v\t%v\t%v\t%d\t%d\t%s\t%s\t%s\t%s\t\n", l.Driver, s.Count, roundDur(s.Min), roundDur(s.P50),
				roundDur(s.P90), roundDur(s.P99), roundDur(s.Max), l.Refused, l.Missing, l.Leases.share(), relay, pg, l.Load)
		}
		_ = tw.Flush()
		fmt.Fprintln(w, "leased at ingest: the share of the deliveries leased by the commit that stored their event rather than claimed (hookrelay_delivery_leases_total)")
		fmt.Fprintln(w, "µs/event: CPU time of the relay and of every PostgreSQL process while the events were posted and delivered, idle polls included, ÷ events delivered")
	}

	if len(r.Claims) > 0 {
		fmt.Fprintf(w, "\nclaim cost on PostgreSQL: claims of %d from a backlog of %d, %d timed per history size, one schema per size, claimed from in turn\n",
			storetest.ClaimBatch, storetest.ClaimBacklog, r.Claims[0].Claims.Count)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "done rows\tseeded in\tp50\tp90\tp99\tload before → after\t")
		for _, c := range r.Claims {
			fmt.Fprintf(tw, "%d\t%v\t%v\t%v\t%v\t%s\t\n", c.History, c.Seed.Round(100*time.Millisecond),
				roundDur(c.Claims.P50), roundDur(c.Claims.P90), roundDur(c.Claims.P99), c.Load)
		}
		_ = tw.Flush()
		if g, ok := r.claimGrowth(); ok {
			fmt.Fprintf(w, "claim p50 growth: %.2fx\n", g)
		}
	}

	fmt.Fprintf(w, "\ntargets: drain ratio >= %.2f; CPU ratio (plain ÷ relay run) >= %.2f sqlite, %.2f postgres; postgres <= %d µs per delivery; latency p50 <= %v; claim p50 growth <= %.1fx\n",
		minDeliverRatio, minCPURatio["sqlite"], minCPURatio["postgres"], maxPostgresPerDelivery, maxLatencyP50, maxClaimGrowth)
	misses := r.misses()
	if len(misses) == 0 {
		fmt.Fprintln(w, "  all met")
	}
	for _, m := range misses {
		fmt.Fprintln(w, "  MISSES "+m)
	}
	for _, d := range r.Drains {
		for _, p := range d.Problems {
			fmt.Fprintf(w, "  %s: %s\n", d.Driver, p)
		}
	}
}

// printCPU writes what each request of the plain client and each delivery
// of the relay cost the machine in CPU time: a figure that the machine's
// speed on the day moves less than the rates.
func (r *deliverReport) printCPU(w io.Writer) {
	fmt.Fprintln(w, "\nCPU per delivery, µs: the machine's busy time over each run ÷ requests or deliveries; the relay's run split by process")
	fmt.Fprintln(w, "(postgres: the server's backends for the bench's database and its own processes; other: the rest, other databases' backends among it)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "driver\tplain\trelay run\trelay\tpostgres\tdestination\tother\tplain ÷ relay run\t")
	for _, d := range r.Drains {
		plain, run, relay, pg, destination, ok := d.cpuPerDelivery()
		if !ok {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t-\t\n", d.Driver)
			continue
		}
		u := d.RelayCPU
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.2f\t\n", d.Driver, plain, run,
			relay, pg, destination, u.perItem(u.Other, d.Deliveries), plain/run)
	}
	_ = tw.Flush()
}
