package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
	"github.com/hookrelay/hookrelay/internal/testkit/proccpu"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// arrivalWait bounds how long the latency measurement waits for the last
// events to arrive after the last post.
const arrivalWait = 10 * time.Second

// measureLatency posts f.latencyEvents signed events to the idle relay one
// at a time, each started f.latencyGap after the previous one (or when the
// previous answer came, if later), and returns the distribution of the
// time from each 200 answer to the destination's receipt of the event. An
// event may arrive before its answer reaches the client; its latency is
// then negative.
func measureLatency(ctx context.Context, p *relayproc.Relay, database string, dest *noopDestination, secret string, f deliverFlags) (latencyRow, error) {
	row := latencyRow{Events: f.latencyEvents, Gap: f.latencyGap, Load: loadAverage()}
	feed, err := loadgen.NewStripeFeed(secret, f.body)
	if err != nil {
		return row, err
	}
	stream := feed.Stream()
	dest.recording.Store(true)
	defer dest.recording.Store(false)
	leasesBefore, err := scrapeLeases(ctx, p.Options.Admin)
	if err != nil {
		return row, err
	}
	meter := startCPU([]int{p.Pid()}, proccpu.URLDatabase(database))

	client := loadgen.NewClient(1)
	defer client.CloseIdleConnections()
	acks := make([]time.Time, f.latencyEvents)
	start := time.Now()
	for i := range f.latencyEvents {
		if wait := time.Until(start.Add(time.Duration(i) * f.latencyGap)); wait > 0 {
			select {
			case <-ctx.Done():
				return row, ctx.Err()
			case <-time.After(wait):
			}
		}
		status, err := postOne(ctx, client, p.IngestURL("stripe"), stream.Request(int64(i)))
		if err != nil || status != http.StatusOK {
			row.Refused++
			continue
		}
		acks[i] = time.Now()
	}

	var lat []time.Duration
	deadline := time.Now().Add(arrivalWait)
	for i := 0; i < len(acks); {
		if acks[i].IsZero() {
			i++
			continue
		}
		if at, ok := dest.arrival(loadgen.EventID(int64(i))); ok {
			lat = append(lat, at.Sub(acks[i]))
			i++
			continue
		}
		if time.Now().After(deadline) {
			row.Missing++
			i++
			continue
		}
		time.Sleep(5 * time.Millisecond)
	}
	row.CPU, row.CPUOK = meter.stop()
	leases, err := scrapeLeases(ctx, p.Options.Admin)
	if err != nil {
		return row, err
	}
	row.Leases = leases.minus(leasesBefore)
	row.Latency = loadgen.Summarize(lat)
	return row, nil
}

// postOne posts r to url, reads the whole answer and returns its status.
func postOne(ctx context.Context, client *http.Client, url string, r loadgen.Request) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(r.Body))
	if err != nil {
		return 0, fmt.Errorf("build request: %w", err)
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("post: %w", err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return 0, fmt.Errorf("read answer: %w", err)
	}
	return resp.StatusCode, nil
}
