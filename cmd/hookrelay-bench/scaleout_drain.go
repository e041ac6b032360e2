package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/proccpu"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// runScaleoutDrain prepares the deliveries on a fresh schema, starts k
// relays with --role worker on it, all at once, and times their drain. A
// relay that does not exit 0 when stopped is a problem of the row.
func runScaleoutDrain(ctx context.Context, stderr io.Writer, f scaleoutFlags, binary, dir string, dest *noopDestination, k int) (row scaleoutDrainRow, err error) {
	row = scaleoutDrainRow{Workers: k, Deliveries: int64(f.deliveries)}
	name := fmt.Sprintf("scaleout-drain-%d", k)
	db, err := newBenchDB(ctx, "postgres", dir, name, f.postgresURL)
	if err != nil {
		return row, err
	}
	defer db.dropReporting(ctx, stderr)
	fmt.Fprintf(stderr, "%s: storing %d pending deliveries\n", counted(k, "worker"), f.deliveries)
	start := time.Now()
	if err := prepareDeliveries(ctx, db.URL(), nil, newBodyFeed(f.body), f.deliveries); err != nil {
		return row, err
	}
	row.Prepare = time.Since(start)

	dest.reset()
	token, extra, err := deliverConfig(dir, []string{dest.url + hooksPath}, f.concurrency, "")
	if err != nil {
		return row, err
	}
	fmt.Fprintf(stderr, "%s: draining them\n", counted(k, "worker"))
	row.Load = loadAverage()
	cfg := relayConfig{Database: db.URL(), LogLevel: f.logLevel, Extra: extra}
	relays, ready, err := startRelays(ctx, binary, dir, name, "worker", k, cfg, randomSecret())
	if err != nil {
		return row, err
	}
	defer stopRelays(stderr, relays, &row.Problems)
	meter := startCPU(pids(relays), proccpu.URLDatabase(db.URL()))
	t, err := timeDrain(ctx, dest, token, row.Deliveries, f.timeout, relays...)
	if err != nil {
		return row, err
	}
	row.CPU, row.CPUOK = meter.stop()
	row.Drain, row.Rate, row.Received = t.Drain, t.Rate, t.Received
	if first, ok := dest.firstDelivery(); ok && ready.After(first) {
		row.Ramp = ready.Sub(first)
	}
	if note := t.note(row.Deliveries); note != "" {
		row.Problems = append(row.Problems, note)
	}
	fmt.Fprintf(stderr, "%s: %.0f deliveries/s\n", counted(k, "worker"), row.Rate)
	return row, nil
}

// startRelays starts n relays with --role role on one config, all at
// once, each with listeners, config file and log of its own (name-1,
// name-2, …), and returns them once every one is ready, with the time the
// last became ready. When one fails, those started are stopped.
func startRelays(ctx context.Context, binary, dir, name, role string, n int, c relayConfig, secret string) ([]*relayproc.Relay, time.Time, error) {
	relays := make([]*relayproc.Relay, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			relays[i], errs[i] = startRelay(ctx, binary, dir, fmt.Sprintf("%s-%d", name, i+1), c, secret, "--role", role)
		})
	}
	wg.Wait()
	ready := time.Now()
	for i, err := range errs {
		if err == nil {
			continue
		}
		for _, p := range relays {
			if p != nil {
				p.Kill()
			}
		}
		return nil, ready, fmt.Errorf("start %s %d of %d: %w", role, i+1, n, err)
	}
	return relays, ready, nil
}

// stopRelays stops every relay with SIGTERM, at once, and adds a problem
// for each that does not exit 0.
func stopRelays(stderr io.Writer, relays []*relayproc.Relay, problems *[]string) {
	errs := make([]error, len(relays))
	var wg sync.WaitGroup
	for i, p := range relays {
		wg.Go(func() { errs[i] = p.Stop(40 * time.Second) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			fmt.Fprintf(stderr, "relay %d did not exit 0: %v; log:\n%s\n", i+1, err, relays[i].Tail(10))
			*problems = append(*problems, fmt.Sprintf("relay %d did not exit 0 on SIGTERM: %v", i+1, err))
		}
	}
}

// pids returns the relays' process ids.
func pids(relays []*relayproc.Relay) []int {
	out := make([]int, len(relays))
	for i, p := range relays {
		out[i] = p.Pid()
	}
	return out
}
