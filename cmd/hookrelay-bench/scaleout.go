package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"
)

// scaleoutFlags are the options of the scaleout command.
type scaleoutFlags struct {
	workers     []int
	receivers   []int
	deliveries  int
	concurrency int
	senders     int
	duration    time.Duration
	warmup      time.Duration
	body        int
	prebuild    int
	logLevel    string
	timeout     time.Duration
	postgresURL string
	binary      string
}

func parseScaleoutFlags(stderr io.Writer, args []string) (scaleoutFlags, error) {
	var f scaleoutFlags
	fs := newFlagSet("scaleout", stderr)
	workers := fs.String("workers", "1,2,4", "comma-separated counts of worker processes (--role worker) draining one database, each run in turn")
	receivers := fs.String("receivers", "1,2", "comma-separated counts of receiver processes (--role receiver) taking ingest on one database, each run in turn")
	fs.IntVar(&f.deliveries, "deliveries", 100_000, "pending deliveries prepared, then drained, per worker count; 0 skips the drain")
	fs.IntVar(&f.concurrency, "concurrency", 32, "the destination's concurrency in every worker process")
	fs.IntVar(&f.senders, "senders", 32, "concurrent ingest senders, their requests spread round-robin over the receivers' ports")
	fs.DurationVar(&f.duration, "duration", 10*time.Second, "measured ingest time per receiver count; 0 skips the ingest")
	fs.DurationVar(&f.warmup, "warmup", 2*time.Second, "unmeasured ingest time before each measurement")
	fs.IntVar(&f.body, "body", 2048, "body size in bytes")
	fs.IntVar(&f.prebuild, "prebuild", 65536, "ingest requests signed before each run; later ones are signed as they are sent")
	fs.StringVar(&f.logLevel, "log-level", "warn", "the relays' log level")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "longest a drain may take")
	fs.StringVar(&f.postgresURL, "postgres-url", defaultPostgresURL, "PostgreSQL server on which scratch schemas are created and dropped")
	fs.StringVar(&f.binary, "binary", "", "hookrelay binary to run; default: build ./cmd/hookrelay")
	err := parseFlags(fs, args)
	if err != nil {
		return f, err
	}
	if f.workers, err = parseList(*workers, false, strconv.Atoi); err != nil {
		return f, fmt.Errorf("%w: --workers: %w", errUsage, err)
	}
	if f.receivers, err = parseList(*receivers, false, strconv.Atoi); err != nil {
		return f, fmt.Errorf("%w: --receivers: %w", errUsage, err)
	}
	if f.deliveries < 0 || f.concurrency <= 0 || f.senders <= 0 || f.duration < 0 || f.warmup < 0 ||
		f.body <= 0 || f.prebuild < 0 || f.timeout <= 0 {
		return f, fmt.Errorf("%w: counts and durations must be positive (--deliveries and --duration may be 0)", errUsage)
	}
	if f.deliveries == 0 && f.duration == 0 {
		return f, fmt.Errorf("%w: --deliveries 0 and --duration 0 leave nothing to measure", errUsage)
	}
	return f, nil
}

// runScaleout measures on one PostgreSQL database, for each count of
// worker processes, the drain of prepared deliveries, then, for each
// count of receiver processes, the ingest rate, and prints both tables
// with each count's ratio to the first.
func runScaleout(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	f, err := parseScaleoutFlags(stderr, args)
	if err != nil {
		return err
	}
	dir, binary, dest, cleanup, err := deliverSetup(ctx, stderr, f.binary)
	if err != nil {
		return err
	}
	defer cleanup()

	rep := &scaleoutReport{
		Deliveries: f.deliveries, Concurrency: f.concurrency, Body: f.body,
		Senders: f.senders, Warmup: f.warmup, Duration: f.duration,
	}
	if f.deliveries > 0 {
		for _, k := range f.workers {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			row, err := runScaleoutDrain(ctx, stderr, f, binary, dir, dest, k)
			if err != nil {
				return err
			}
			rep.Drains = append(rep.Drains, row)
		}
	}
	if f.duration > 0 {
		for _, r := range f.receivers {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			row, err := runScaleoutIngest(ctx, stderr, f, binary, dir, r)
			if err != nil {
				return err
			}
			rep.Ingests = append(rep.Ingests, row)
		}
	}
	rep.print(stdout)
	if rep.failed() {
		return errFailed
	}
	return nil
}
