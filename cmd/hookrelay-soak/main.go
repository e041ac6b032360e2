// Command hookrelay-soak is the long form of the crash test of
// e2e/reliability: it runs the real relay under a steady load of signed
// Stripe events from the provider simulator, kills it with SIGKILL after
// random lifetimes and restarts it on the same database and ports, for as
// long as asked. Then it waits for the deliveries to drain and checks the
// promise: every event answered 200 is stored exactly once and reached the
// recording destination at least once. All traffic stays on 127.0.0.1.
//
// Run it from the repository root (it builds ./cmd/hookrelay unless
// --hookrelay is given):
//
//	go run ./cmd/hookrelay-soak --duration 10m
//	go run ./cmd/hookrelay-soak --database postgres://postgres@127.0.0.1:5432/soak --duration 30m --rate 300
//
// The database must hold no events yet: a SQLite file in a temporary
// directory by default, or an empty PostgreSQL database or schema. It
// prints a line per kill and ends with a RELIABILITY line of figures; the
// exit code is 0 when nothing was lost, 1 otherwise (the relay's log and
// database are then kept), 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// errFailed marks a soak that ran but broke the promise; its detail has
// already been printed.
var errFailed = errors.New("soak failed")

// options are the command's flags.
type options struct {
	hookrelay   string
	database    string
	duration    time.Duration
	minUptime   time.Duration
	maxUptime   time.Duration
	maxDowntime time.Duration
	drain       time.Duration
	rate        float64
	concurrency int
	hold        time.Duration
	keep        bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Stdout, os.Stderr, os.Args[1:])
	stop()
	os.Exit(code)
}

// run parses the flags, soaks, and returns the exit code: 0 nothing lost,
// 1 failure, 2 usage.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	o, err := parseFlags(stderr, args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "hookrelay-soak:", err)
		return 2
	}
	if err := soak(ctx, stdout, o); err != nil {
		if !errors.Is(err, errFailed) {
			fmt.Fprintln(stderr, "hookrelay-soak:", err)
		}
		return 1
	}
	return 0
}

func parseFlags(stderr io.Writer, args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("hookrelay-soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.hookrelay, "hookrelay", "", "the hookrelay binary; default: build ./cmd/hookrelay")
	fs.StringVar(&o.database, "database", "", "sqlite:PATH or postgres://… holding no events; default: a new SQLite file")
	fs.DurationVar(&o.duration, "duration", 10*time.Minute, "how long to send events and kill the relay")
	fs.DurationVar(&o.minUptime, "min-uptime", 3*time.Second, "shortest life of the relay between kills")
	fs.DurationVar(&o.maxUptime, "max-uptime", 15*time.Second, "longest life of the relay between kills")
	fs.DurationVar(&o.maxDowntime, "max-downtime", 500*time.Millisecond, "longest pause between a kill and the restart")
	fs.DurationVar(&o.drain, "drain", 3*time.Minute, "how long to wait for every delivery after the last restart")
	fs.Float64Var(&o.rate, "rate", 200, "events started per second")
	fs.IntVar(&o.concurrency, "concurrency", 16, "events in flight at once")
	fs.DurationVar(&o.hold, "hold", 10*time.Millisecond, "how long the destination holds each answer")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (config, relay log, SQLite file) even on success")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.duration <= 0, o.minUptime <= 0, o.drain <= 0:
		return o, errors.New("--duration, --min-uptime and --drain must be positive")
	case o.maxUptime < o.minUptime:
		return o, errors.New("--max-uptime must be at least --min-uptime")
	case o.maxDowntime < 0, o.hold < 0:
		return o, errors.New("--max-downtime and --hold must not be negative")
	case o.rate <= 0, o.concurrency <= 0:
		return o, errors.New("--rate and --concurrency must be positive")
	}
	return o, nil
}
