package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
	"github.com/hookrelay/hookrelay/internal/testkit/proccpu"
)

// sustainedFlags are the options of the sustained command.
type sustainedFlags struct {
	deliver      deliverFlags // the drain and latency measured first; drivers, body, binary, database
	destinations []int
	rates        []float64
	duration     time.Duration
	senders      int
	settle       time.Duration
	runs         int
}

func parseSustainedFlags(stderr io.Writer, args []string) (sustainedFlags, error) {
	var f sustainedFlags
	fs := newFlagSet("sustained", stderr)
	driver := fs.String("driver", "both", "sqlite, postgres or both")
	dests := fs.String("destinations", "0,1,4", "comma-separated counts of push destinations every event fans out to, each run in turn; 0 stores the events alone, the baseline of the CPU per delivery")
	rates := fs.String("rates", "1000,2000,3000,4000", "comma-separated offered ingest rates in events/s, tried in increasing order until one is not kept up with")
	fs.DurationVar(&f.duration, "duration", 60*time.Second, "how long each rate is offered")
	fs.IntVar(&f.senders, "senders", 64, "most ingest requests in flight")
	fs.IntVar(&f.runs, "runs", 1, "how many times the whole measurement runs, the drivers taking turns; the CPU per delivery is then the median of the runs, with their range")
	fs.DurationVar(&f.settle, "settle", 2*time.Minute, "longest wait, after the load stops, for every delivery to be done")
	fs.IntVar(&f.deliver.deliveries, "deliveries", 50_000, "deliveries drained for the drain ratio; 0 skips the drain and latency")
	fs.IntVar(&f.deliver.concurrency, "concurrency", 32, "every destination's concurrency, and the plain client's senders")
	rateFlag(fs, &f.deliver.rate)
	fs.IntVar(&f.deliver.body, "body", 2048, "body size in bytes")
	fs.StringVar(&f.deliver.logLevel, "log-level", "warn", "the relay's log level")
	fs.IntVar(&f.deliver.latencyEvents, "latency-events", 200, "events posted one at a time to the idle relay after the drain to measure ingest-to-delivery latency; 0 skips")
	fs.DurationVar(&f.deliver.latencyGap, "latency-gap", 20*time.Millisecond, "time between the starts of two latency posts")
	fs.DurationVar(&f.deliver.timeout, "timeout", 10*time.Minute, "longest the drain may take")
	fs.StringVar(&f.deliver.postgresURL, "postgres-url", defaultPostgresURL, "PostgreSQL server on which scratch schemas are created and dropped")
	fs.StringVar(&f.deliver.binary, "binary", "", "hookrelay binary to run; default: build ./cmd/hookrelay")
	err := parseFlags(fs, args)
	if err != nil {
		return f, err
	}
	if f.deliver.drivers, err = driverList(*driver); err != nil {
		return f, err
	}
	if err := checkRate(f.deliver.rate); err != nil {
		return f, err
	}
	if f.destinations, err = parseList(*dests, true, strconv.Atoi); err != nil {
		return f, fmt.Errorf("%w: --destinations: %w", errUsage, err)
	}
	if f.rates, err = parseList(*rates, false, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }); err != nil {
		return f, fmt.Errorf("%w: --rates: %w", errUsage, err)
	}
	for i := 1; i < len(f.rates); i++ {
		if f.rates[i] <= f.rates[i-1] {
			return f, fmt.Errorf("%w: --rates must increase", errUsage)
		}
	}
	if f.duration <= 0 || f.senders <= 0 || f.settle <= 0 || f.runs <= 0 || f.deliver.deliveries < 0 || f.deliver.concurrency <= 0 ||
		f.deliver.body <= 0 || f.deliver.latencyEvents < 0 || f.deliver.timeout <= 0 {
		return f, fmt.Errorf("%w: counts and durations must be positive", errUsage)
	}
	return f, nil
}

// parseList parses a comma-separated list of positive numbers, or, with
// zeroOK, of numbers not below zero.
func parseList[T int | float64](s string, zeroOK bool, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for part := range strings.SplitSeq(s, ",") {
		v, err := parse(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		if v < 0 || v == 0 && !zeroOK {
			return nil, fmt.Errorf("%v is not positive", v)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty list")
	}
	return out, nil
}

// runSustained measures, per driver: the drain of prepared deliveries
// against a plain client and the idle relay's latency, as deliver does;
// then, for each count of destinations, the highest offered ingest rate
// whose deliveries keep up — the backlog flat over the run and every
// delivery done soon after the load stops.
func runSustained(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	f, err := parseSustainedFlags(stderr, args)
	if err != nil {
		return err
	}
	dir, binary, dest, cleanup, err := deliverSetup(ctx, stderr, f.deliver.binary)
	if err != nil {
		return err
	}
	defer cleanup()

	rep := &sustainedReport{flags: f}
	rep.Deliver = deliverReport{Deliveries: f.deliver.deliveries, Concurrency: f.deliver.concurrency, Body: f.deliver.body}
	for run := range f.runs {
		for _, driver := range f.deliver.drivers {
			if err := runSustainedDriver(ctx, stderr, f, rep, binary, dir, driver, dest, run); err != nil {
				return err
			}
		}
	}
	rep.print(stdout)
	if rep.failed() {
		return errFailed
	}
	return nil
}

// runSustainedDriver makes one run of the measurement on one driver: the
// drain and latency, then each count of destinations at the rates kept up
// with, appending its rows to rep.
func runSustainedDriver(ctx context.Context, stderr io.Writer, f sustainedFlags, rep *sustainedReport, binary, dir, driver string, dest *noopDestination, run int) error {
	if f.deliver.deliveries > 0 {
		row, lat, err := runDeliverDriver(ctx, stderr, f.deliver, binary, dir, driver, dest)
		if err != nil {
			return err
		}
		row.Run = run
		rep.Deliver.Drains = append(rep.Deliver.Drains, row)
		if lat != nil {
			rep.Deliver.Latencies = append(rep.Deliver.Latencies, *lat)
		}
	}
	for _, n := range f.destinations {
		for _, rate := range f.rates {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			row, err := runSustainedRate(ctx, stderr, f, binary, dir, driver, dest, n, rate)
			if err != nil {
				return err
			}
			row.Run = run
			if n > 0 {
				senders := n * f.deliver.concurrency
				if row.Plain, err = runPacedPlain(ctx, stderr, dest, f.deliver.body, senders, rate*float64(n), pacedPlainDuration(f.duration)); err != nil {
					return err
				}
			}
			rep.Runs = append(rep.Runs, row)
			if !row.KeptUp() {
				break // higher rates will not keep up either
			}
		}
	}
	return nil
}

// runSustainedRate offers rate events/s for f.duration to a fresh relay
// with n push destinations, samples the backlog every second, then waits
// for every delivery to be done.
func runSustainedRate(ctx context.Context, stderr io.Writer, f sustainedFlags, binary, dir, driver string, dest *noopDestination, n int, rate float64) (sustainedRow, error) {
	row := sustainedRow{Driver: driver, Destinations: n, Offered: rate, Duration: f.duration, Load: loadAverage()}
	name := fmt.Sprintf("sustained-%s-%d-%.0f", driver, n, rate)
	db, err := newBenchDB(ctx, driver, dir, name, f.deliver.postgresURL)
	if err != nil {
		return row, err
	}
	defer db.dropReporting(ctx, stderr)
	dest.reset()
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("%s%s/%d", dest.url, hooksPath, i+1)
	}
	token, extra, err := deliverConfig(dir, urls, f.deliver.concurrency, f.deliver.rate)
	if err != nil {
		return row, err
	}
	secret := randomSecret()
	p, err := startRelay(ctx, binary, dir, name, relayConfig{Database: db.URL(), LogLevel: f.deliver.logLevel, Extra: extra}, secret)
	if err != nil {
		return row, err
	}
	defer func() {
		if err := p.Stop(40 * time.Second); err != nil {
			fmt.Fprintf(stderr, "%s: relay did not exit 0: %v\n", name, err)
			row.Problems = append(row.Problems, "relay did not exit 0")
		}
	}()
	feed, err := loadgen.NewStripeFeed(secret, f.deliver.body)
	if err != nil {
		return row, err
	}

	fmt.Fprintf(stderr, "%s: %d destinations, %.0f events/s offered for %v\n", driver, n, rate, f.duration)
	var acked atomic.Int64
	backlog := func() int64 { return acked.Load()*int64(n) - dest.received.Load() }
	sampler := startBacklogSampler(time.Second, backlog)
	meter := startCPU([]int{p.Pid()}, proccpu.URLDatabase(db.URL()))
	res, err := loadgen.Run(ctx, loadgen.Options{
		URL: p.IngestURL("stripe"), Senders: f.senders, Duration: f.duration, Feed: feed, Rate: rate, Acked: &acked,
	})
	row.Samples = sampler.stop()
	if err != nil {
		return row, err
	}
	row.Sent, row.Acked = res.Sent, res.Acked
	row.Achieved = float64(res.Acked) / f.duration.Seconds()
	row.IngestP99 = res.Latency.P99
	if res.Failed() > 0 {
		row.Problems = append(row.Problems, fmt.Sprintf("%d events not acknowledged: %s", res.Failed(), errorSummary(res.Statuses, res.Errors)))
	}

	want := res.Acked * int64(n)
	stopped := time.Now()
	deadline := stopped.Add(f.settle)
	var done int64
	for want > 0 {
		if dest.received.Load() >= want {
			if done, err = doneDeliveries(ctx, p.Options.Admin, token); err != nil {
				return row, err
			}
			if done >= want {
				break
			}
		}
		if err := pause(ctx, deadline, 50*time.Millisecond, p); err != nil {
			row.Problems = append(row.Problems, fmt.Sprintf("%d of %d deliveries received, %d done %v after the load stopped",
				dest.received.Load(), want, done, f.settle))
			break
		}
	}
	row.Settled = time.Since(stopped)
	row.CPU, row.CPUOK = meter.stop()
	if row.Leases, err = scrapeLeases(ctx, p.Options.Admin); err != nil {
		return row, err
	}
	row.Done = done
	row.Wanted = want
	row.Received = dest.received.Load()
	fmt.Fprintf(stderr, "%s: %s\n", name, row.summary())
	return row, nil
}

// backlogSampler records a backlog at a fixed interval until stopped.
type backlogSampler struct {
	done    chan struct{}
	samples chan []int64
}

func startBacklogSampler(every time.Duration, backlog func() int64) *backlogSampler {
	s := &backlogSampler{done: make(chan struct{}), samples: make(chan []int64, 1)}
	go func() {
		var out []int64
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.done:
				s.samples <- out
				return
			case <-t.C:
				out = append(out, backlog())
			}
		}
	}()
	return s
}

// stop ends sampling and returns the samples, one per interval.
func (s *backlogSampler) stop() []int64 {
	close(s.done)
	return <-s.samples
}
