// Package loadgen drives an HTTP endpoint with concurrent senders and
// measures how fast it acknowledges: a closed-loop generator for steady
// throughput and latency (Run), and a burst of large concurrent posts that
// honours Retry-After (Burst). It is the load generator of
// cmd/hookrelay-bench; it sends only where its caller points it.
package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure Run. URL, Senders, Duration and Feed are required.
type Options struct {
	// URL receives every request as a POST.
	URL string
	// Senders is how many goroutines send, each waiting for its answer
	// before it sends again.
	Senders int
	// Warmup is sent first and left out of the figures, though its
	// answers still count in Result.Acked.
	Warmup time.Duration
	// Duration is the measured window that follows the warmup.
	Duration time.Duration
	// MaxRequests, when positive, stops the run after that many requests
	// whatever the time.
	MaxRequests int64
	// Feed supplies the requests; request i is sent once, by one sender.
	Feed Feed
	// Client sends the requests; default NewClient(Senders).
	Client *http.Client
	// Rate, when positive, paces the run at a fixed offered rate: request
	// i is sent no sooner than i/Rate seconds after the start, by
	// whichever sender is free. Senders then bound the requests in flight.
	Rate float64
	// Acked, when set, counts the 200s as they come, for a caller that
	// watches the run.
	Acked *atomic.Int64
}

// Result is what Run measured.
type Result struct {
	// Sent counts every request that was answered or failed, warmup
	// included; Acked the 200s among them. The target stored exactly
	// Acked events if it kept its promise.
	Sent  int64 `json:"sent"`
	Acked int64 `json:"acked"`
	// Statuses counts every answer other than 200, by status code.
	Statuses map[int]int64 `json:"statuses,omitempty"`
	// Errors counts requests that got no answer (connection or timeout
	// errors); FirstError is the first of them.
	Errors     int64  `json:"errors"`
	FirstError string `json:"first_error,omitempty"`
	// Window is the measured window; Measured counts the requests that
	// finished inside it and MeasuredAcked the 200s among those.
	Window        time.Duration `json:"window_ns"`
	Measured      int64         `json:"measured"`
	MeasuredAcked int64         `json:"measured_acked"`
	// Latency describes the 200s that finished inside the window, from
	// sending to the end of the answer.
	Latency Summary `json:"latency"`
}

// Rate is acknowledged requests per second in the measured window.
func (r Result) Rate() float64 {
	if r.Window <= 0 {
		return 0
	}
	return float64(r.MeasuredAcked) / r.Window.Seconds()
}

// Failed counts requests that were not acknowledged: other statuses and
// errors.
func (r Result) Failed() int64 { return r.Sent - r.Acked }

// NewClient returns a client for n concurrent senders to one host: it keeps
// n idle connections, speaks HTTP/1.1 without compression, and gives up on
// a request after 30 seconds.
func NewClient(n int) *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConns:        n,
			MaxIdleConnsPerHost: n,
			MaxConnsPerHost:     n,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
	}
}

// senderTally is one sender's counts, merged after the run.
type senderTally struct {
	sent, acked, errors int64
	measured, mAcked    int64
	statuses            map[int]int64
	firstErr            string
	lat                 []time.Duration
}

// Run drives opts.URL until Warmup plus Duration has passed, MaxRequests
// have been sent, or ctx ends, and returns what it measured. Requests in
// flight at the end are waited for. It fails only on bad options.
func Run(ctx context.Context, opts Options) (Result, error) {
	if opts.URL == "" || opts.Senders <= 0 || opts.Duration <= 0 || opts.Feed == nil {
		return Result{}, errors.New("run load: URL, Senders, Duration and Feed are required")
	}
	client := opts.Client
	if client == nil {
		client = NewClient(opts.Senders)
		defer client.CloseIdleConnections()
	}
	start := time.Now()
	from := start.Add(opts.Warmup)
	until := from.Add(opts.Duration)

	var next atomic.Int64
	tallies := make([]*senderTally, opts.Senders)
	var wg sync.WaitGroup
	for s := range opts.Senders {
		t := &senderTally{statuses: map[int]int64{}}
		tallies[s] = t
		stream := opts.Feed.Stream()
		wg.Go(func() {
			for ctx.Err() == nil && time.Now().Before(until) {
				i := next.Add(1) - 1
				if opts.MaxRequests > 0 && i >= opts.MaxRequests {
					return
				}
				if opts.Rate > 0 {
					at := start.Add(time.Duration(float64(i) / opts.Rate * float64(time.Second)))
					if !at.Before(until) || !sleepUntil(ctx, at) {
						return
					}
				}
				code, took, err := send(ctx, client, opts.URL, stream.Request(i))
				done := time.Now()
				t.record(code, err)
				if code == http.StatusOK && opts.Acked != nil {
					opts.Acked.Add(1)
				}
				if !done.Before(from) && done.Before(until) {
					t.measured++
					if code == http.StatusOK {
						t.mAcked++
						t.lat = append(t.lat, took)
					}
				}
			}
		})
	}
	wg.Wait()

	res := Result{Window: opts.Duration, Statuses: map[int]int64{}}
	var lat []time.Duration
	for _, t := range tallies {
		res.Sent += t.sent
		res.Acked += t.acked
		res.Errors += t.errors
		res.Measured += t.measured
		res.MeasuredAcked += t.mAcked
		for c, n := range t.statuses {
			res.Statuses[c] += n
		}
		if res.FirstError == "" {
			res.FirstError = t.firstErr
		}
		lat = append(lat, t.lat...)
	}
	// A run cut short by ctx or MaxRequests measured a shorter window.
	if end := time.Now(); end.Before(until) {
		res.Window = max(end.Sub(from), 0)
	}
	res.Latency = Summarize(lat)
	return res, nil
}

// sleepUntil waits until at; it reports false when ctx ended first.
func sleepUntil(ctx context.Context, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (t *senderTally) record(code int, err error) {
	t.sent++
	switch {
	case err != nil:
		t.errors++
		if t.firstErr == "" {
			t.firstErr = err.Error()
		}
	case code == http.StatusOK:
		t.acked++
	default:
		t.statuses[code]++
	}
}

// send posts r to url, reads the whole answer, and returns its status and
// how long it took.
func send(ctx context.Context, client *http.Client, url string, r Request) (int, time.Duration, error) {
	resp, took, err := post(ctx, client, url, r)
	if err != nil {
		return 0, took, err
	}
	return resp.StatusCode, took, nil
}

// post sends r and drains the answer; the returned response's body is
// already closed.
func post(ctx context.Context, client *http.Client, url string, r Request) (*http.Response, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(r.Body))
	if err != nil {
		return nil, 0, fmt.Errorf("build request: %w", err)
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, time.Since(start), fmt.Errorf("post: %w", err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		return nil, took, fmt.Errorf("read answer: %w", err)
	}
	return resp, took, nil
}
