package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
	"github.com/hookrelay/hookrelay/internal/testkit/proccpu"
)

// runScaleoutIngest starts r relays with --role receiver on a fresh
// schema, all at once, drives them for the measured time with the
// requests spread round-robin over their ports, stops them, and counts
// what they stored.
func runScaleoutIngest(ctx context.Context, stderr io.Writer, f scaleoutFlags, binary, dir string, r int) (row scaleoutIngestRow, err error) {
	row = scaleoutIngestRow{Receivers: r, Stored: -1}
	name := fmt.Sprintf("scaleout-ingest-%d", r)
	db, err := newBenchDB(ctx, "postgres", dir, name, f.postgresURL)
	if err != nil {
		return row, err
	}
	defer db.dropReporting(ctx, stderr)
	secret := randomSecret()
	relays, _, err := startRelays(ctx, binary, dir, name, "receiver", r, relayConfig{Database: db.URL(), LogLevel: f.logLevel}, secret)
	if err != nil {
		return row, err
	}
	stopped := false
	defer func() {
		if !stopped {
			stopRelays(stderr, relays, &row.Problems)
		}
	}()
	feed, err := loadgen.NewStripeFeed(secret, f.body)
	if err != nil {
		return row, err
	}
	feed.Prebuild(f.prebuild)
	addrs := make([]string, r)
	for i, p := range relays {
		addrs[i] = p.Options.Public
	}

	fmt.Fprintf(stderr, "%s: %d senders, %v warmup + %v\n", counted(r, "receiver"), f.senders, f.warmup, f.duration)
	row.Load = loadAverage()
	client := roundRobinClient(addrs, f.senders)
	defer client.CloseIdleConnections()
	meter := startCPU(pids(relays), proccpu.URLDatabase(db.URL()))
	row.Result, err = loadgen.Run(ctx, loadgen.Options{
		URL: relays[0].IngestURL("stripe"), Senders: f.senders, Warmup: f.warmup, Duration: f.duration,
		Feed: feed, Client: client,
	})
	if err != nil {
		return row, err
	}
	row.CPU, row.CPUOK = meter.stop()
	row.Rate = row.Result.Rate()

	stopped = true
	stopRelays(stderr, relays, &row.Problems)
	if row.Stored, err = db.CountEvents(context.WithoutCancel(ctx)); err != nil {
		row.Stored = -1
		row.Problems = append(row.Problems, err.Error())
	}
	row.Problems = append(row.Problems, checkStored(row.Stored, row.Result.Acked, row.Result.Errors)...)
	fmt.Fprintf(stderr, "%s: %.0f events/s\n", counted(r, "receiver"), row.Rate)
	return row, nil
}

// roundRobinClient is loadgen's client for n senders whose requests go
// to addrs in turn, whatever host their URL names, as a load balancer in
// front of the receivers would send them.
func roundRobinClient(addrs []string, n int) *http.Client {
	c := loadgen.NewClient(n)
	t := c.Transport.(*http.Transport)
	// A sender's next request goes to another receiver, so each keeps an
	// idle connection to every one.
	t.MaxIdleConns = n * len(addrs)
	c.Transport = &roundRobin{addrs: addrs, next: new(atomic.Uint64), base: t}
	return c
}

// roundRobin is a RoundTripper that sends each request to the next of
// addrs.
type roundRobin struct {
	addrs []string
	next  *atomic.Uint64
	base  http.RoundTripper
}

func (rr *roundRobin) RoundTrip(req *http.Request) (*http.Response, error) {
	addr := rr.addrs[(rr.next.Add(1)-1)%uint64(len(rr.addrs))]
	// A RoundTripper must not change the request it is given: send a
	// shallow copy with a URL of its own.
	out := *req
	u := *req.URL
	u.Host = addr
	out.URL, out.Host = &u, addr
	return rr.base.RoundTrip(&out)
}
