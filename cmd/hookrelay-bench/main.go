// Command hookrelay-bench measures hookrelay's ingest path against the
// targets it promises: it builds and starts the real relay as a child
// process, drives POST /webhooks/stripe with concurrent senders of signed
// Stripe events, drives a no-op Go HTTP handler with the same load in the
// same run, and compares the two. All traffic goes to 127.0.0.1; every run
// is bounded in time and count.
//
// Run it from the repository root (it builds ./cmd/hookrelay unless
// --binary is given):
//
//	# req/s, p50/p99 ack latency and the ratio to the no-op, per driver,
//	# at log level warn and at the default info; exit 1 if an acknowledged
//	# event is missing from the database or the relay does not exit 0
//	go run ./cmd/hookrelay-bench ingest --driver both --senders 32 --duration 10s
//	go run ./cmd/hookrelay-bench ingest --driver sqlite --senders 32 --duration 10s --warmup 2s --body 2048
//	go run ./cmd/hookrelay-bench ingest --driver postgres --postgres-url postgres://postgres@127.0.0.1:5432/postgres --json
//	# add --check-targets to exit 1 when a target is missed (SQLite at least
//	# 0.40 of the no-op's req/s, PostgreSQL 0.30, p99 at most 25ms); add
//	# --encrypt (ingest, deliver) to have payloads sealed at rest under a
//	# random key, and compare with the same run without it
//
//	# peak RSS of the relay under 256 concurrent 1 MiB bodies, 3 rounds;
//	# shed requests (503 + Retry-After) are retried until stored or 60s
//	go run ./cmd/hookrelay-bench memory --driver sqlite --concurrency 256 --body 1MiB --rounds 3
//
//	# drain 100 000 prepared deliveries to a local no-op destination and
//	# compare with a plain Go client posting the same bodies at the same
//	# concurrency; then ingest-to-delivery latency on the idle relay (200
//	# events 20ms apart); then, on PostgreSQL, the claim's median with
//	# 10 000 and 5 000 000 done deliveries behind it
//	go run ./cmd/hookrelay-bench deliver --driver both --deliveries 100000 --concurrency 32
//
//	# the drain and latency of deliver (no claim check), then, with 1 and
//	# with 4 push destinations, each rate offered for 60s in turn until
//	# one is not kept up with: backlog sampled every second, kept up when
//	# every event is acknowledged, the backlog flat and every delivery
//	# done soon after; prints the highest rate kept up with
//	go run ./cmd/hookrelay-bench sustained --driver both --destinations 1,4 --rates 1000,2000,3000,4000 --duration 60s
//
//	# on PostgreSQL: the drain of 100 000 prepared deliveries by 1, 2 and
//	# 4 processes started with --role worker on one database, then the
//	# ingest rate of 1 and 2 processes started with --role receiver, the
//	# senders' requests round-robin over their ports; deliveries/s and
//	# events/s with the ratio to the first count, the load average, and
//	# where the CPU went
//	go run ./cmd/hookrelay-bench scaleout --workers 1,2,4 --receivers 1,2 --deliveries 100000 --duration 10s
//
//	# the SQLite WAL's size while 32 senders ingest for 40 s and every
//	# event is delivered to the no-op target, then over 10 s of idle
//	go run ./cmd/hookrelay-bench wal --senders 32 --duration 40s --idle 10s
//
//	# on PostgreSQL: one day of 1 and of 5 million done deliveries (4 per
//	# event), 40 days old, retired by one retention pass: the row-level
//	# Prune of an unpartitioned event log, then the drop of the day's
//	# partitions of one partitioned by day; wall time, WAL written, the
//	# tables' size before, after and after the VACUUM deleting leaves
//	go run ./cmd/hookrelay-bench prune --deliveries 1000000,5000000 --destinations 4
//
//	# the no-op target on its own: prints its address, answers 200 to
//	# anything after reading the body, stops on SIGTERM
//	go run ./cmd/hookrelay-bench noop --listen 127.0.0.1:0
//
// The PostgreSQL runs create a schema of their own (t_<random>, as the
// tests' databases are made) in the database of --postgres-url and drop it
// at the end.
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
)

// errFailed marks a run that completed but whose result is a failure (lost
// events, a relay that did not exit cleanly, a missed target); its detail
// has already been printed.
var errFailed = errors.New("benchmark failed")

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, stdout, stderr io.Writer, args []string) error
}

func commands() []command {
	return []command{
		{"ingest", "req/s and ack latency of the relay against a no-op handler", runIngest},
		{"memory", "peak RSS of the relay under concurrent large bodies", runMemory},
		{"deliver", "deliveries/s against a plain client, delivery latency, claim cost", runDeliver},
		{"sustained", "highest ingest rate whose deliveries keep up, with the drain ratio", runSustained},
		{"scaleout", "drain and ingest rates as worker and receiver processes are added (PostgreSQL)", runScaleout},
		{"wal", "SQLite WAL size under sustained ingest and delivery, and once idle", runWAL},
		{"prune", "retiring a day of deliveries: row-level Prune against dropping partitions (PostgreSQL)", runPrune},
		{"noop", "serve the no-op target (used by ingest)", runNoop},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Stdout, os.Stderr, os.Args[1:])
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and returns the exit code: 0 ok, 1
// failure, 2 usage.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, stdout, stderr, args[1:])
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			fmt.Fprintf(stderr, "hookrelay-bench %s: %v\n", c.name, err)
			return 2
		case errors.Is(err, errFailed):
			return 1
		default:
			fmt.Fprintf(stderr, "hookrelay-bench %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "hookrelay-bench: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "hookrelay-bench: benchmark hookrelay's ingest path\n\nUsage: hookrelay-bench COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
}

// errUsage marks a mistake in the command line.
var errUsage = errors.New("usage")

// parseFlags parses args and refuses stray positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("hookrelay-bench "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
