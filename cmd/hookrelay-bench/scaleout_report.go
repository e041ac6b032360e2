package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
)

// scaleoutDrainRow is one count of worker processes draining one
// database.
type scaleoutDrainRow struct {
	Workers    int
	Deliveries int64
	// Prepare is how long storing the pending deliveries took.
	Prepare time.Duration
	// Drain runs from the first delivery's arrival to the stats counting
	// every delivery done; Rate is deliveries per second over it.
	Drain    time.Duration
	Rate     float64
	Received int64
	// Ramp is how long after the first delivery's arrival the last worker
	// was ready: the part of Drain run with fewer workers than counted.
	Ramp time.Duration
	// CPU is the use from every worker being ready to the last done;
	// CPUOK is false where it could not be read.
	CPU   cpuUse
	CPUOK bool
	// Load is the load average when the workers started.
	Load     string
	Problems []string
}

// scaleoutIngestRow is one count of receiver processes taking ingest on
// one database.
type scaleoutIngestRow struct {
	Receivers int
	Result    loadgen.Result
	// Rate is acknowledged events per second in the measured window.
	Rate float64
	// Stored counts the events in the database after the run; -1 when not
	// counted.
	Stored int64
	// CPU is the use over the whole load, warmup included.
	CPU   cpuUse
	CPUOK bool
	// Load is the load average when the load began.
	Load     string
	Problems []string
}

// scaleoutReport is the scaleout command's output.
type scaleoutReport struct {
	Deliveries  int
	Concurrency int
	Body        int
	Senders     int
	Warmup      time.Duration
	Duration    time.Duration
	Drains      []scaleoutDrainRow
	Ingests     []scaleoutIngestRow
}

// ratio is rate over base, or 0 without a base.
func ratio(rate, base float64) float64 {
	if base <= 0 {
		return 0
	}
	return rate / base
}

// failed reports a problem other than a note in any row.
func (r *scaleoutReport) failed() bool {
	var all []string
	for _, d := range r.Drains {
		all = append(all, d.Problems...)
	}
	for _, i := range r.Ingests {
		all = append(all, i.Problems...)
	}
	for _, p := range all {
		if !strings.HasPrefix(p, "note:") {
			return true
		}
	}
	return false
}

// cpuCells are a row's CPU columns: busy, the relays, this process,
// PostgreSQL, the rest; dashes where CPU time could not be read.
func cpuCells(u cpuUse, ok bool) string {
	if !ok {
		return "-\t-\t-\t-\t-"
	}
	return fmt.Sprintf("%.2f/%d\t%.2f\t%.2f\t%.2f\t%.2f", u.Busy, u.Cores, u.Relays, u.Bench, u.Postgres, u.Other)
}

func (r *scaleoutReport) print(w io.Writer) {
	if len(r.Drains) > 0 {
		r.printDrains(w)
	}
	if len(r.Ingests) > 0 {
		if len(r.Drains) > 0 {
			fmt.Fprintln(w)
		}
		r.printIngests(w)
	}
	fmt.Fprintln(w, "\ncpu: cores in use on average (busy/cores on the machine); relays: the worker or receiver processes;")
	fmt.Fprintln(w, "bench: this process (destination or load generator); postgres: the server's backends for the bench's database and its own processes (WAL writer, checkpointer, ...);")
	fmt.Fprintln(w, "other: the rest of busy, anything else running")
	if l := r.limit(); l != "" {
		fmt.Fprintln(w, l)
	}
	for _, d := range r.Drains {
		for _, p := range d.Problems {
			fmt.Fprintf(w, "  %s: %s\n", counted(d.Workers, "worker"), p)
		}
	}
	for _, i := range r.Ingests {
		for _, p := range i.Problems {
			fmt.Fprintf(w, "  %s: %s\n", counted(i.Receivers, "receiver"), p)
		}
		if i.Result.FirstError != "" {
			fmt.Fprintf(w, "  %s: first error: %s\n", counted(i.Receivers, "receiver"), i.Result.FirstError)
		}
	}
}

func (r *scaleoutReport) printDrains(w io.Writer) {
	fmt.Fprintf(w, "drain on PostgreSQL: %d pending deliveries to one no-op destination, concurrency %d in each worker process, body %d B\n",
		r.Deliveries, r.Concurrency, r.Body)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "workers\tprepare\tdrain\tramp\tdeliveries/s\tvs %d\tcpu busy\trelays\tbench\tpostgres\tother\tload\t\n", r.Drains[0].Workers)
	for _, d := range r.Drains {
		fmt.Fprintf(tw, "%d\t%v\t%v\t%v\t%.0f\t%.2f\t%s\t%s\t\n", d.Workers, d.Prepare.Round(100*time.Millisecond),
			d.Drain.Round(10*time.Millisecond), d.Ramp.Round(10*time.Millisecond), d.Rate, ratio(d.Rate, r.Drains[0].Rate),
			cpuCells(d.CPU, d.CPUOK), d.Load)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "drain: from the first delivery's arrival until /api/v1/stats counts all done; ramp: how much of it ran before the last worker was ready")
	fmt.Fprintln(w, "cpu: from every worker ready until all done")
}

func (r *scaleoutReport) printIngests(w io.Writer) {
	fmt.Fprintf(w, "ingest on PostgreSQL: %d senders, requests round-robin over the receivers' ports, %v warmup + %v measured, body %d B\n",
		r.Senders, r.Warmup, r.Duration, r.Body)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "receivers\tevents/s\tvs %d\tp50\tp99\terrors\tstored\tcpu busy\trelays\tbench\tpostgres\tother\tload\t\n", r.Ingests[0].Receivers)
	for _, i := range r.Ingests {
		res := i.Result
		stored := "-"
		if i.Stored >= 0 {
			stored = fmt.Sprintf("%d/%d", i.Stored, res.Acked)
		}
		fmt.Fprintf(tw, "%d\t%.0f\t%.2f\t%v\t%v\t%s\t%s\t%s\t%s\t\n", i.Receivers, i.Rate, ratio(i.Rate, r.Ingests[0].Rate),
			roundDur(res.Latency.P50), roundDur(res.Latency.P99), errorSummary(res.Statuses, res.Errors), stored,
			cpuCells(i.CPU, i.CPUOK), i.Load)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "events/s: acknowledged (200) in the measured window; p50/p99: from sending to the end of the answer; stored: events in the database / 200s")
	fmt.Fprintln(w, "cpu: over the whole load, warmup included")
}

// limit says, for the largest count of each kind, how busy the machine
// was and who kept it busy: where the limit is once processes are added.
func (r *scaleoutReport) limit() string {
	var lines []string
	say := func(what string, u cpuUse) {
		share := u.Busy / float64(max(u.Cores, 1))
		var verdict string
		switch {
		case share >= 0.9:
			verdict = "the cores are saturated: more processes only share them"
		case share >= 0.75:
			verdict = "the cores are nearly saturated"
		default:
			verdict = "the cores are not saturated: the limit is elsewhere (locks, round trips to PostgreSQL)"
		}
		if u.Other >= 0.25 {
			verdict += fmt.Sprintf("; other processes took %.2f cores, so the machine was not quiet", u.Other)
		}
		lines = append(lines, fmt.Sprintf("limit at %s: %.0f%% of %d cores busy (relays %.2f, bench %.2f, postgres %.2f, other %.2f); %s",
			what, 100*share, u.Cores, u.Relays, u.Bench, u.Postgres, u.Other, verdict))
	}
	if n := len(r.Drains); n > 0 && r.Drains[n-1].CPUOK {
		d := r.Drains[n-1]
		say(counted(d.Workers, "worker"), d.CPU)
	}
	if n := len(r.Ingests); n > 0 && r.Ingests[n-1].CPUOK {
		i := r.Ingests[n-1]
		say(counted(i.Receivers, "receiver"), i.CPU)
	}
	return strings.Join(lines, "\n")
}

// counted is n and the noun, plural unless n is 1: "1 worker", "2 workers".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
