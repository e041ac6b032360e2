package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// Targets the sustained benchmark checks, on a 2-core machine: the rate
// offered with targetDestinations destinations that must be kept up with.
const (
	targetRate         = 2000
	targetDestinations = 4
	// maxBacklogGrowth is the most the backlog may grow per second, as a
	// share of the deliveries offered per second, for it to count as flat.
	maxBacklogGrowth = 0.01
	// minAchieved is the least share of the offered rate the relay must
	// have acknowledged: a relay that slows ingest down is not keeping up.
	minAchieved = 0.98
)

// sustainedRow is one offered rate to one relay with some destinations.
type sustainedRow struct {
	Driver       string
	Run          int // which run of several (--runs), from 0
	Destinations int
	Offered      float64 // events/s offered
	Duration     time.Duration
	// Sent and Acked count the ingest requests; Achieved is Acked per
	// second of the run.
	Sent, Acked int64
	Achieved    float64
	IngestP99   time.Duration
	// Samples is the backlog — deliveries acknowledged and not yet
	// received by their destination — once a second.
	Samples []int64
	// Wanted is every acknowledged event times the destinations; Received
	// and Done what the destination got and the stats count done when
	// the wait after the load ended; Settled how long that wait took.
	Wanted, Received, Done int64
	Settled                time.Duration
	Load                   string
	Problems               []string
	// CPU is the machine's CPU use from the load's start to the end of
	// the wait after it; CPUOK is false where it could not be read.
	CPU   cpuUse
	CPUOK bool
	// Leases counts the deliveries leased at ingest and by claims.
	Leases leaseCounts
	// Plain is the plain client's run at the rate of this row's
	// deliveries, made right after it (rows with destinations only).
	Plain pacedPlain
}

// cpuPerEvent returns the CPU time per event acknowledged, in µs, of the
// whole machine, the relay, the PostgreSQL server and the bench (load and
// destinations), or dashes when not measured.
func (r sustainedRow) cpuPerEvent() string {
	busy, relay, postgres, bench, ok := r.perEvent()
	if !ok {
		return "-\t-\t-\t-"
	}
	return fmt.Sprintf("%.0f\t%.0f\t%.0f\t%.0f", busy, relay, postgres, bench)
}

// deliveryCost is what one delivery costs, in µs of CPU, leased at ingest
// as far as Leased says: a run with destinations against the run at the
// same rate with none, which stores the same events and delivers nothing.
type deliveryCost struct {
	Driver                       string
	Run                          int
	Destinations                 int
	Offered                      float64
	Busy, Relay, Postgres, Bench float64
	Plain                        float64 // the plain client's per request in the run's drain, 0 when not run
	PlainAtRate                  float64 // the plain client's per request paced at the deliveries' rate, 0 when not run
	// Leased is the percentage of the row's deliveries leased at ingest,
	// -1 when the relay counted no leases (one built before leasing).
	Leased float64
}

// Ratio is the plain request's CPU over the delivery's, 0 without a
// plain client's run.
func (c deliveryCost) Ratio() float64 {
	if c.Plain <= 0 || c.Busy <= 0 {
		return 0
	}
	return c.Plain / c.Busy
}

// RatioAtRate is the CPU of a plain request paced at the deliveries' rate
// over the delivery's, 0 without that run.
func (c deliveryCost) RatioAtRate() float64 {
	if c.PlainAtRate <= 0 || c.Busy <= 0 {
		return 0
	}
	return c.PlainAtRate / c.Busy
}

// deliveryCosts returns the cost per delivery of every measured row with
// destinations that has a baseline in its run: (its µs per event − the
// baseline's) ÷ its destinations. The baseline's events are the same, so
// what the difference holds is the deliveries' work: the pushes and their
// outcomes in the relay and the database, and the destinations' side of
// each request in the bench's column.
func (r *sustainedReport) deliveryCosts() []deliveryCost {
	key := func(driver string, run int, rate float64) string { return fmt.Sprintf("%s/%d/%.0f", driver, run, rate) }
	base := map[string]sustainedRow{}
	for _, row := range r.Runs {
		if row.Destinations == 0 {
			base[key(row.Driver, row.Run, row.Offered)] = row
		}
	}
	var out []deliveryCost
	for _, row := range r.Runs {
		b, ok := base[key(row.Driver, row.Run, row.Offered)]
		if row.Destinations == 0 || !ok {
			continue
		}
		busy, relay, pg, bench, ok1 := row.perEvent()
		busy0, relay0, pg0, bench0, ok0 := b.perEvent()
		if !ok1 || !ok0 {
			continue
		}
		n := float64(row.Destinations)
		c := deliveryCost{Driver: row.Driver, Run: row.Run, Destinations: row.Destinations, Offered: row.Offered,
			Busy: (busy - busy0) / n, Relay: (relay - relay0) / n, Postgres: (pg - pg0) / n, Bench: (bench - bench0) / n, Leased: -1}
		if pct, ok := row.Leases.percent(); ok {
			c.Leased = pct
		}
		if plain, ok := row.Plain.perRequest(); ok {
			c.PlainAtRate = plain
		}
		for _, d := range r.Deliver.Drains {
			if plain, _, _, _, _, ok := d.cpuPerDelivery(); ok && d.Driver == row.Driver && d.Run == row.Run {
				c.Plain = plain
			}
		}
		out = append(out, c)
	}
	return out
}

// costGroup is the costs per delivery of one driver, count of
// destinations and rate, one per run.
type costGroup struct {
	Driver       string
	Destinations int
	Offered      float64
	Costs        []deliveryCost
}

// groupCosts gathers costs by driver, destinations and rate, in the
// order first seen.
func groupCosts(costs []deliveryCost) []costGroup {
	var out []costGroup
	index := map[string]int{}
	for _, c := range costs {
		k := fmt.Sprintf("%s/%d/%.0f", c.Driver, c.Destinations, c.Offered)
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, costGroup{Driver: c.Driver, Destinations: c.Destinations, Offered: c.Offered})
		}
		out[i].Costs = append(out[i].Costs, c)
	}
	return out
}

// median returns the median of f over the group's costs, and their
// least and greatest.
func (g costGroup) median(f func(deliveryCost) float64) (med, lo, hi float64) {
	vs := make([]float64, len(g.Costs))
	for i, c := range g.Costs {
		vs[i] = f(c)
	}
	slices.Sort(vs)
	n := len(vs)
	med = vs[n/2]
	if n%2 == 0 {
		med = (vs[n/2-1] + vs[n/2]) / 2
	}
	return med, vs[0], vs[n-1]
}

// spread formats f's median over the group, with its range when the
// group holds more than one run, in verb.
func (g costGroup) spread(verb string, f func(deliveryCost) float64) string {
	med, lo, hi := g.median(f)
	if len(g.Costs) == 1 {
		return fmt.Sprintf(verb, med)
	}
	return fmt.Sprintf(verb+" ("+verb+"–"+verb+")", med, lo, hi)
}

// minLeasedShare is the median share of deliveries leased at ingest, in
// percent, below which a rate's costs are printed but not checked
// against the targets: the relay fell behind, and they are mostly the
// claimed path's.
const minLeasedShare = 90

// printDeliveryCosts writes deliveryCosts, as medians with their range
// when there are several runs, and the targets they miss.
func (r *sustainedReport) printDeliveryCosts(w io.Writer) {
	groups := groupCosts(r.deliveryCosts())
	if len(groups) == 0 {
		return
	}
	fmt.Fprintln(w, "\nCPU per delivery, µs: (µs/event with N destinations − with none, same rate, same run) ÷ N; with several runs, the median (range)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "driver\tN\toffered/s\truns\tleased\tbusy\trelay\tpostgres\tdestinations\tplain\tplain ÷ busy\tpaced plain\tpaced ÷ busy\t")
	for _, g := range groups {
		plain, ratio := "-", "-"
		if p, _, _ := g.median(func(c deliveryCost) float64 { return c.Plain }); p > 0 {
			plain, ratio = g.spread("%.0f", func(c deliveryCost) float64 { return c.Plain }), g.spread("%.2f", deliveryCost.Ratio)
		}
		paced, pacedRatio := "-", "-"
		if p, _, _ := g.median(func(c deliveryCost) float64 { return c.PlainAtRate }); p > 0 {
			paced, pacedRatio = g.spread("%.0f", func(c deliveryCost) float64 { return c.PlainAtRate }), g.spread("%.2f", deliveryCost.RatioAtRate)
		}
		leased := "-"
		if _, lo, _ := g.median(leasedShare); lo >= 0 {
			leased = g.spread("%.0f%%", leasedShare)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", g.Driver, g.Destinations, g.Offered, len(g.Costs), leased,
			g.spread("%.0f", func(c deliveryCost) float64 { return c.Busy }), g.spread("%.0f", func(c deliveryCost) float64 { return c.Relay }),
			g.spread("%.0f", func(c deliveryCost) float64 { return c.Postgres }), g.spread("%.0f", func(c deliveryCost) float64 { return c.Bench }),
			plain, ratio, paced, pacedRatio)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "leased: the share of the run's deliveries leased at ingest, which the targets are about; destinations: the bench's CPU, whose load generator's share is the same per event in both runs; plain: the plain client's CPU per request in the run's drain above, sending as fast as it can, which the targets are checked against; paced plain: the same client and destination (this process's CPU alone) right after the run, paced at its deliveries' rate, as the deliveries were")
	for _, g := range groups {
		if share, lo, _ := g.median(leasedShare); lo >= 0 && share < minLeasedShare {
			fmt.Fprintf(w, "  not checked: %s, N=%d, %.0f/s: %.0f%% leased at ingest (< %d%%), the relay fell behind and claimed the rest\n",
				g.Driver, g.Destinations, g.Offered, share, minLeasedShare)
			continue
		}
		if pg, _, _ := g.median(func(c deliveryCost) float64 { return c.Postgres }); g.Driver == "postgres" && pg > maxPostgresPerDelivery {
			fmt.Fprintf(w, "  MISSES postgres: server CPU %.0f µs per delivery leased at ingest (N=%d, %.0f/s) > %d\n", pg, g.Destinations, g.Offered, maxPostgresPerDelivery)
		}
		if ratio, _, _ := g.median(deliveryCost.Ratio); ratio > 0 && ratio < minCPURatio[g.Driver] {
			fmt.Fprintf(w, "  MISSES %s: CPU ratio %.2f per delivery leased at ingest (N=%d, %.0f/s) < %.2f\n", g.Driver, ratio, g.Destinations, g.Offered, minCPURatio[g.Driver])
		}
	}
}

// leasedShare is a cost's share of deliveries leased at ingest, for
// costGroup.median.
func leasedShare(c deliveryCost) float64 { return c.Leased }

// perEvent returns the CPU time per event acknowledged, in µs, of the
// whole machine, the relay, the PostgreSQL server and the bench; ok is
// false when not measured.
func (r sustainedRow) perEvent() (busy, relay, postgres, bench float64, ok bool) {
	if !r.CPUOK || r.Acked == 0 {
		return 0, 0, 0, 0, false
	}
	u := r.CPU
	return u.perItem(u.Busy, r.Acked), u.perItem(u.Relays, r.Acked), u.perItem(u.Postgres, r.Acked), u.perItem(u.Bench, r.Acked), true
}

// steady returns the samples after the first quarter of the run, when
// the pipelines have filled.
func (r sustainedRow) steady() []int64 { return r.Samples[len(r.Samples)/4:] }

// Growth is the backlog's least-squares slope over the steady samples,
// in deliveries per second.
func (r sustainedRow) Growth() float64 {
	s := r.steady()
	n := float64(len(s))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i, v := range s {
		x, y := float64(i), float64(v)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

// MaxBacklog is the largest steady sample.
func (r sustainedRow) MaxBacklog() int64 {
	var m int64
	for _, v := range r.steady() {
		m = max(m, v)
	}
	return m
}

// Flat reports whether the backlog grew by less than maxBacklogGrowth of
// the offered deliveries per second.
func (r sustainedRow) Flat() bool {
	return len(r.Samples) >= 4 && r.Growth() <= maxBacklogGrowth*r.Offered*float64(r.Destinations)
}

// KeptUp reports whether the relay acknowledged what was offered, its
// backlog stayed flat, and every delivery was done at the end.
func (r sustainedRow) KeptUp() bool {
	return len(r.Problems) == 0 && r.Flat() && r.Achieved >= minAchieved*r.Offered && r.Done == r.Wanted && r.Received >= r.Wanted
}

func (r sustainedRow) summary() string {
	return fmt.Sprintf("acked %d of %d (%.0f/s), backlog max %d growth %+.1f/s, %d of %d done %v after the load, kept up: %t",
		r.Acked, r.Sent, r.Achieved, r.MaxBacklog(), r.Growth(), r.Done, r.Wanted, r.Settled.Round(100*time.Millisecond), r.KeptUp())
}

// sustainedReport is the sustained command's output.
type sustainedReport struct {
	flags   sustainedFlags
	Deliver deliverReport
	Runs    []sustainedRow
}

// best returns the highest rate kept up with per driver and count of
// destinations, 0 when none was, in the order first run.
func (r *sustainedReport) best() []sustainedRow {
	var out []sustainedRow
	index := map[string]int{}
	for _, row := range r.Runs {
		key := fmt.Sprintf("%s/%d", row.Driver, row.Destinations)
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, sustainedRow{Driver: row.Driver, Destinations: row.Destinations})
		}
		if row.KeptUp() && row.Offered > out[i].Offered {
			out[i] = row
		}
	}
	return out
}

// misses lists the sustained targets missed, one line each.
func (r *sustainedReport) misses() []string {
	var m []string
	for _, b := range r.best() {
		if b.Destinations == targetDestinations && b.Offered < targetRate {
			m = append(m, fmt.Sprintf("%s: %d destinations kept up with %.0f events/s < %d", b.Driver, b.Destinations, b.Offered, targetRate))
		}
	}
	return m
}

// failed reports a failed drain or latency run; rates not kept up with
// are figures, not failures.
func (r *sustainedReport) failed() bool { return r.Deliver.failed() }

func (r *sustainedReport) print(w io.Writer) {
	if len(r.Deliver.Drains) > 0 {
		r.Deliver.print(w)
		fmt.Fprintln(w)
	}
	f := r.flags
	fmt.Fprintf(w, "sustained: signed %d B events offered at a fixed rate for %v (%d senders at most), each fanned out to N no-op push destinations of concurrency %d; backlog = deliveries acknowledged but not yet received, sampled every second\n",
		f.deliver.body, f.duration, f.senders, f.deliver.concurrency)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "driver\trun\tN\toffered/s\tacked/s\tingest p99\tbacklog max\tgrowth/s\tdone\tsettled in\tkept up\tleased at ingest\tbusy µs/event\trelay\tpostgres\tbench\tload\t")
	for _, row := range r.Runs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.0f\t%v\t%d\t%+.1f\t%d/%d\t%v\t%t\t%s\t%s\t%s\t\n", row.Driver, row.Run+1, row.Destinations, row.Offered,
			row.Achieved, roundDur(row.IngestP99), row.MaxBacklog(), row.Growth(), row.Done, row.Wanted,
			row.Settled.Round(100*time.Millisecond), row.KeptUp(), row.Leases.share(), row.cpuPerEvent(), row.Load)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "leased at ingest: the share of the deliveries leased by the commit that stored their event rather than claimed (hookrelay_delivery_leases_total)")
	fmt.Fprintln(w, "µs/event: CPU time from the load's start until every delivery was done ÷ events acknowledged: the whole machine's, then the relay's, every PostgreSQL process's and the bench's (load generator and destinations)")
	fmt.Fprintf(w, "kept up: acked >= %.0f%% of offered, backlog growth over the last three quarters <= %.0f%% of the offered deliveries/s, every delivery done within %v of the load's end\n",
		minAchieved*100, maxBacklogGrowth*100, f.settle)
	for _, row := range r.Runs {
		for _, p := range row.Problems {
			fmt.Fprintf(w, "  %s N=%d %.0f/s: %s\n", row.Driver, row.Destinations, row.Offered, p)
		}
	}

	r.printDeliveryCosts(w)

	fmt.Fprintln(w, "\nhighest rate kept up with")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "driver\tN\tevents/s\tdeliveries/s\t")
	for _, b := range r.best() {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t\n", b.Driver, b.Destinations, b.Offered, b.Offered*float64(b.Destinations))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\ntarget: %d events/s kept up with %d destinations\n", targetRate, targetDestinations)
	misses := r.misses()
	if len(misses) == 0 {
		fmt.Fprintln(w, "  met (where measured)")
	}
	for _, m := range misses {
		fmt.Fprintln(w, "  MISSES "+m)
	}
}
