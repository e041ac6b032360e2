package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
)

// ingestFlags are the options of the ingest command.
type ingestFlags struct {
	drivers      []string
	levels       []string
	senders      int
	duration     time.Duration
	warmup       time.Duration
	body         int
	prebuild     int
	postgresURL  string
	binary       string
	json         bool
	checkTargets bool
	encrypt      bool
}

func parseIngestFlags(stderr io.Writer, args []string) (ingestFlags, error) {
	var f ingestFlags
	fs := newFlagSet("ingest", stderr)
	driver := fs.String("driver", "both", "sqlite, postgres, both, or none for the no-op alone")
	levels := fs.String("log-levels", "warn,info", "relay log levels to run, one row each, comma-separated")
	fs.IntVar(&f.senders, "senders", 32, "concurrent senders")
	fs.DurationVar(&f.duration, "duration", 10*time.Second, "measured time per target")
	fs.DurationVar(&f.warmup, "warmup", 2*time.Second, "unmeasured time before each measurement")
	fs.IntVar(&f.body, "body", 2048, "body size in bytes")
	// Requests past the prebuilt ones cost the generator a signature
	// each. The no-op, the fastest target, runs past them most, which if
	// anything flatters the relay's ratio; a larger pool (about 3 KiB of
	// memory a request) removes that.
	fs.IntVar(&f.prebuild, "prebuild", 65536, "requests signed before each target's run; later ones are signed as they are sent")
	fs.StringVar(&f.postgresURL, "postgres-url", defaultPostgresURL, "PostgreSQL server on which a scratch schema is created and dropped")
	fs.StringVar(&f.binary, "binary", "", "hookrelay binary to run; default: build ./cmd/hookrelay")
	fs.BoolVar(&f.json, "json", false, "print the results as JSON")
	fs.BoolVar(&f.checkTargets, "check-targets", false, "exit 1 when a relay row misses its target")
	fs.BoolVar(&f.encrypt, "encrypt", false, "the relay seals stored payloads under a random key (encryption at rest)")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch *driver {
	case "sqlite", "postgres":
		f.drivers = []string{*driver}
	case "both":
		f.drivers = []string{"sqlite", "postgres"}
	case "none":
	default:
		return f, fmt.Errorf("%w: --driver must be sqlite, postgres, both or none", errUsage)
	}
	for _, l := range strings.Split(*levels, ",") {
		switch l = strings.TrimSpace(l); l {
		case "debug", "info", "warn", "error":
			f.levels = append(f.levels, l)
		default:
			return f, fmt.Errorf("%w: unknown log level %q", errUsage, l)
		}
	}
	if f.senders <= 0 || f.duration <= 0 || f.warmup < 0 || f.body <= 0 || f.prebuild < 0 {
		return f, fmt.Errorf("%w: --senders, --duration and --body must be positive", errUsage)
	}
	return f, nil
}

// runIngest measures the no-op handler, then each driver at each log level,
// and prints one row per target.
func runIngest(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	f, err := parseIngestFlags(stderr, args)
	if err != nil {
		return err
	}
	dir, binary, remove, err := scratch(ctx, stderr, f.binary, len(f.drivers) > 0)
	if err != nil {
		return err
	}
	defer remove()
	secret := randomSecret()
	// Each target gets a feed of its own, signed just before its run, so
	// no timestamp ages past the relay's tolerance however long the whole
	// benchmark takes; the bodies are the same for every target.
	load := func(url string) (loadgen.Result, error) {
		feed, err := loadgen.NewStripeFeed(secret, f.body)
		if err != nil {
			return loadgen.Result{}, err
		}
		feed.Prebuild(f.prebuild)
		return loadgen.Run(ctx, loadgen.Options{
			URL: url, Senders: f.senders, Warmup: f.warmup, Duration: f.duration, Feed: feed,
		})
	}

	rep := &ingestReport{Senders: f.senders, Body: f.body, Duration: f.duration, LoadBefore: loadAverage()}
	fmt.Fprintf(stderr, "no-op handler: %d senders, %v warmup + %v\n", f.senders, f.warmup, f.duration)
	noop, err := runNoopTarget(ctx, load)
	if err != nil {
		return err
	}
	rep.add(noop)
	for _, driver := range f.drivers {
		for _, level := range f.levels {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintf(stderr, "relay %s, log level %s\n", driver, level)
			r, err := runRelayTarget(ctx, f, binary, dir, driver, level, secret, load)
			if err != nil {
				return err
			}
			rep.add(r)
		}
	}
	rep.LoadAfter = loadAverage()
	rep.judge()
	if err := rep.print(stdout, f.json); err != nil {
		return err
	}
	if rep.failed(f.checkTargets) {
		return errFailed
	}
	return nil
}

// runNoopTarget starts the no-op child, drives it and stops it.
func runNoopTarget(ctx context.Context, load func(string) (loadgen.Result, error)) (ingestRow, error) {
	p, addr, err := startNoop(ctx)
	if err != nil {
		return ingestRow{}, err
	}
	res, err := load("http://" + addr + "/webhooks/stripe")
	stopErr := p.Stop(10 * time.Second)
	if err != nil {
		return ingestRow{}, err
	}
	row := ingestRow{Target: "noop", Driver: "-", Result: res, Stored: -1}
	if stopErr != nil {
		row.Problems = append(row.Problems, "noop: "+stopErr.Error())
	}
	return row, nil
}

// runRelayTarget runs one relay on a fresh database, drives it, stops it,
// and counts what it stored.
func runRelayTarget(ctx context.Context, f ingestFlags, binary, dir, driver, level, secret string, load func(string) (loadgen.Result, error)) (ingestRow, error) {
	name := driver + "-" + level
	db, err := newBenchDB(ctx, driver, dir, name, f.postgresURL)
	if err != nil {
		return ingestRow{}, err
	}
	defer db.dropReporting(ctx, os.Stderr)
	key, _, err := payloadKey(f.encrypt)
	if err != nil {
		return ingestRow{}, err
	}
	p, err := startRelay(ctx, binary, dir, name, relayConfig{Database: db.URL(), LogLevel: level, Key: key}, secret)
	if err != nil {
		return ingestRow{}, err
	}
	res, err := load(p.IngestURL("stripe"))
	commits, scrapeErr := scrapeCommitStats(ctx, p.Options.Admin)
	stopErr := p.Stop(40 * time.Second)
	if err != nil {
		return ingestRow{}, err
	}
	row := ingestRow{Target: "relay", Driver: driver, LogLevel: level, Result: res, Stored: -1}
	if scrapeErr == nil {
		row.Commits = &commits
	} else {
		row.Problems = append(row.Problems, "note: "+scrapeErr.Error())
	}
	if stopErr != nil {
		row.Problems = append(row.Problems, fmt.Sprintf("relay did not exit 0 on SIGTERM: %v; log:\n%s", stopErr, p.Tail(10)))
	}
	stored, err := db.CountEvents(context.WithoutCancel(ctx))
	if err != nil {
		row.Problems = append(row.Problems, err.Error())
		return row, nil
	}
	row.Stored = stored
	return row, nil
}

// randomSecret returns a fresh Stripe-style signing secret.
func randomSecret() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "whsec_bench_" + hex.EncodeToString(b[:])
}

// loadAverage returns the machine's 1, 5 and 15 minute load averages as
// /proc/loadavg prints them, or "" where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(b))
	if len(fields) < 3 {
		return ""
	}
	return strings.Join(fields[:3], " ")
}
