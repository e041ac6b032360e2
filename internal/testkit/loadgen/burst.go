package loadgen

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// BurstOptions configure Burst. URL, Concurrency and Feed are required.
type BurstOptions struct {
	URL string
	// Concurrency is how many requests are sent at once, one per
	// goroutine, all released together.
	Concurrency int
	// First is the feed index of the first request; the burst sends
	// First to First+Concurrency-1.
	First int64
	Feed  Feed
	// Deadline bounds the whole burst, retries included. Default 60s.
	Deadline time.Duration
	// MaxWait caps one wait before a retry, whatever Retry-After says.
	// Default 5s.
	MaxWait time.Duration
	// Client sends the requests; default NewClient(Concurrency).
	Client *http.Client
}

// BurstResult is what Burst saw.
type BurstResult struct {
	// Acked counts requests that ended with 200, FirstTry those that got
	// it at once; Unacked those that had none by the deadline or got a
	// final refusal.
	Acked    int64 `json:"acked"`
	FirstTry int64 `json:"first_try"`
	Unacked  int64 `json:"unacked"`
	// Shed counts 503 and 429 answers, each followed by a retry while time
	// remained; Retries counts every retry.
	Shed    int64 `json:"shed"`
	Retries int64 `json:"retries"`
	// Statuses counts every answer other than 200, by code; Errors the
	// tries that got no answer.
	Statuses   map[int]int64 `json:"statuses,omitempty"`
	Errors     int64         `json:"errors"`
	FirstError string        `json:"first_error,omitempty"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	// Latency runs from a request's first try to its 200.
	Latency Summary `json:"latency"`
}

// Burst sends Concurrency requests at once and retries each one answered
// 503 or 429 (after its Retry-After, or a second when it has none) or not
// answered at all, until it is acknowledged or the deadline passes. Other
// answers are final.
func Burst(ctx context.Context, opts BurstOptions) (BurstResult, error) {
	if opts.URL == "" || opts.Concurrency <= 0 || opts.Feed == nil {
		return BurstResult{}, errors.New("run burst: URL, Concurrency and Feed are required")
	}
	if opts.Deadline <= 0 {
		opts.Deadline = 60 * time.Second
	}
	if opts.MaxWait <= 0 {
		opts.MaxWait = 5 * time.Second
	}
	client := opts.Client
	if client == nil {
		client = NewClient(opts.Concurrency)
		defer client.CloseIdleConnections()
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Deadline)
	defer cancel()

	var (
		mu  sync.Mutex // guards res and lat
		res = BurstResult{Statuses: map[int]int64{}}
		lat []time.Duration
		wg  sync.WaitGroup
	)
	ready := make(chan struct{})
	start := time.Now()
	for g := range opts.Concurrency {
		stream := opts.Feed.Stream()
		r := stream.Request(opts.First + int64(g))
		wg.Go(func() {
			<-ready
			began := time.Now()
			for try := 0; ; try++ {
				resp, _, err := post(ctx, client, opts.URL, r)
				code := 0
				if resp != nil {
					code = resp.StatusCode
				}
				mu.Lock()
				if try > 0 {
					res.Retries++
				}
				switch {
				case err != nil:
					res.Errors++
					if res.FirstError == "" {
						res.FirstError = err.Error()
					}
				case code == http.StatusOK:
					res.Acked++
					if try == 0 {
						res.FirstTry++
					}
					lat = append(lat, time.Since(began))
				default:
					res.Statuses[code]++
					if code == http.StatusServiceUnavailable || code == http.StatusTooManyRequests {
						res.Shed++
					}
				}
				mu.Unlock()
				if code == http.StatusOK {
					return
				}
				if err == nil && code != http.StatusServiceUnavailable && code != http.StatusTooManyRequests {
					break
				}
				if !sleep(ctx, retryWait(resp, opts.MaxWait)) {
					break
				}
			}
			mu.Lock()
			res.Unacked++
			mu.Unlock()
		})
	}
	close(ready)
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.Latency = Summarize(lat)
	return res, nil
}

// retryWait is how long to wait before retrying after resp (nil when the
// try got no answer): its Retry-After in seconds, else one second, at most
// limit, and at least 10ms; plus up to a quarter more at random, so that
// shed requests do not all come back in the same instant.
func retryWait(resp *http.Response, limit time.Duration) time.Duration {
	wait := time.Second
	if resp != nil {
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		}
	}
	wait = min(max(wait, 10*time.Millisecond), limit)
	return wait + rand.N(wait/4+1)
}

// sleep waits d or until ctx ends, and reports whether it waited all of d.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
