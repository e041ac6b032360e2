// Package providersim simulates the world around a relay: a webhook provider
// that sends signed Stripe events and retries them the way real providers
// do (Simulator), and a destination that verifies and records what the
// relay delivers (Destination). The reliability tests and the soak command
// use both to check that nothing the relay acknowledged is ever lost.
//
// Everything here talks to addresses its caller chooses; the tests keep
// them on 127.0.0.1.
package providersim

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Options configure a Simulator. URL and Secret are required.
type Options struct {
	// URL receives every event as a POST, e.g.
	// "http://127.0.0.1:8080/webhooks/stripe".
	URL string
	// Secret is the Stripe signing secret the relay's source verifies with.
	Secret string
	// Prefix starts every event id; ids are Prefix followed by a sequence
	// number. Default "evt_sim_" and a random run tag, so that two runs
	// against one database never share an id.
	Prefix string
	// Concurrency is how many events are in flight at once, each in its
	// own retry loop. Default 8.
	Concurrency int
	// Count, when positive, stops the simulator from starting events after
	// that many.
	Count int
	// Duration, when positive, stops the simulator from starting events
	// that long after Start.
	Duration time.Duration
	// Rate, when positive, caps how many events start per second, all
	// senders together; zero starts the next event as soon as a sender is
	// free.
	Rate float64
	// MaxAttempts bounds the tries of one event, the first included.
	// Default 30.
	MaxAttempts int
	// Deadline bounds how long one event is retried after its first try.
	// Default 2 minutes.
	Deadline time.Duration
	// Timeout bounds one attempt. Default 5s.
	Timeout time.Duration
	// MinBackoff and MaxBackoff bound the wait before a retry: it starts at
	// MinBackoff, doubles after each failure up to MaxBackoff, and is
	// jittered down by up to half. A Retry-After is honoured up to
	// MaxBackoff. Defaults 50ms and 1s.
	MinBackoff, MaxBackoff time.Duration
	// Client sends the requests; default one sized for Concurrency.
	Client *http.Client
}

func (o *Options) setDefaults() error {
	if o.URL == "" || o.Secret == "" {
		return errors.New("providersim: URL and Secret are required")
	}
	if o.Prefix == "" {
		o.Prefix = "evt_sim_" + runTag() + "_"
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 30
	}
	if o.Deadline <= 0 {
		o.Deadline = 2 * time.Minute
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 50 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(time.Second, o.MinBackoff)
	}
	if o.Client == nil {
		o.Client = newClient(o.Concurrency, o.Timeout)
	}
	return nil
}

// Simulator sends events and records what became of each.
type Simulator struct {
	opts Options

	stopOnce sync.Once
	stop     chan struct{} // closed by Stop: start no more events
	done     chan struct{} // closed when every started event has finished

	mu        sync.Mutex
	events    []*Event   // by sequence; guarded by mu
	responses []Response // in the order answers came; guarded by mu
}

// New returns a Simulator; call Start.
func New(o Options) (*Simulator, error) {
	if err := o.setDefaults(); err != nil {
		return nil, err
	}
	return &Simulator{opts: o, stop: make(chan struct{}), done: make(chan struct{})}, nil
}

// Start begins sending in the background. Cancelling ctx abandons every
// event at once, retries included; Stop is the gentle way to end a run.
func (s *Simulator) Start(ctx context.Context) {
	var limiter *rate.Limiter
	if s.opts.Rate > 0 {
		limiter = rate.NewLimiter(rate.Limit(s.opts.Rate), 1)
	}
	if s.opts.Duration > 0 {
		time.AfterFunc(s.opts.Duration, s.Stop)
	}
	seqs := make(chan int)
	go func() {
		defer close(seqs)
		for seq := 1; s.opts.Count <= 0 || seq <= s.opts.Count; seq++ {
			if limiter != nil {
				if err := limiter.Wait(ctx); err != nil {
					return
				}
			}
			select {
			case seqs <- seq:
			case <-s.stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range s.opts.Concurrency {
		wg.Go(func() {
			for seq := range seqs {
				s.deliver(ctx, s.newEvent(seq))
			}
		})
	}
	go func() {
		wg.Wait()
		close(s.done)
	}()
}

// Stop starts no more events; the events already started go on being
// retried until they are acknowledged or given up.
func (s *Simulator) Stop() {
	s.stopOnce.Do(func() { close(s.stop) })
}

// Wait returns the report once every started event has been acknowledged
// or given up, or when ctx is done (the report then holds what is known).
func (s *Simulator) Wait(ctx context.Context) (Report, error) {
	select {
	case <-s.done:
		return s.Report(), nil
	case <-ctx.Done():
		return s.Report(), fmt.Errorf("wait for the simulator: %w", ctx.Err())
	}
}

// Run starts the simulator and waits for it; set Count or Duration, or it
// runs until ctx is done.
func (s *Simulator) Run(ctx context.Context) (Report, error) {
	s.Start(ctx)
	return s.Wait(context.WithoutCancel(ctx))
}

// Report returns a snapshot of every event and answer so far.
func (s *Simulator) Report() Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := Report{Events: make([]Event, len(s.events)), Responses: append([]Response(nil), s.responses...)}
	for i, e := range s.events {
		r.Events[i] = *e
	}
	return r
}

// Acked returns how many events have been acknowledged so far.
func (s *Simulator) Acked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.events {
		if e.Acked {
			n++
		}
	}
	return n
}
