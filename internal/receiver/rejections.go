package receiver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/hookrelay/hookrelay/internal/store"
)

// RejectionRecorder keeps the bounded rejection record: it writes rejection
// metadata in batches off the request path, at most PerSecond records per
// source, and trims the table to the newest Keep rows. Forged traffic at any
// rate therefore costs a counter increment, not unbounded rows.
type RejectionRecorder struct {
	store   store.Store
	logger  *slog.Logger
	metrics *Metrics
	keep    int
	perSec  float64

	queue chan store.Rejection

	mu       sync.Mutex // guards limiters
	limiters map[string]*rate.Limiter

	stop chan struct{}
	done chan struct{}
}

// RejectionOptions tune a RejectionRecorder.
type RejectionOptions struct {
	// Keep is how many rejection rows are kept. Default 10000.
	Keep int
	// PerSecond is how many rejections per source are recorded each second
	// (with a burst of as many). Default 50.
	PerSecond float64
}

// NewRejectionRecorder starts a recorder. Call Close to flush and stop it.
func NewRejectionRecorder(s store.Store, opts RejectionOptions, m *Metrics, logger *slog.Logger) *RejectionRecorder {
	if opts.Keep <= 0 {
		opts.Keep = 10000
	}
	if opts.PerSecond <= 0 {
		opts.PerSecond = 50
	}
	rr := &RejectionRecorder{
		store:    s,
		logger:   logger.With("component", "rejections"),
		metrics:  m,
		keep:     opts.Keep,
		perSec:   opts.PerSecond,
		queue:    make(chan store.Rejection, 1024),
		limiters: make(map[string]*rate.Limiter),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go rr.run()
	return rr
}

// Allow reports whether a rejection from source may be recorded now. The
// caller logs only allowed rejections, so a flood does not flood the log.
func (rr *RejectionRecorder) Allow(source string) bool {
	rr.mu.Lock()
	l, ok := rr.limiters[source]
	if !ok {
		l = rate.NewLimiter(rate.Limit(rr.perSec), int(rr.perSec))
		rr.limiters[source] = l
	}
	rr.mu.Unlock()
	if !l.Allow() {
		rr.metrics.rejectsDropped.Inc()
		return false
	}
	return true
}

// Record queues one allowed rejection for writing; it never blocks the
// request path.
func (rr *RejectionRecorder) Record(r store.Rejection) {
	select {
	case rr.queue <- r:
	default:
		rr.metrics.rejectsDropped.Inc()
	}
}

// Close writes what is queued and stops the recorder.
func (rr *RejectionRecorder) Close() {
	close(rr.stop)
	<-rr.done
}

func (rr *RejectionRecorder) run() {
	defer close(rr.done)
	flush := time.NewTicker(time.Second)
	defer flush.Stop()
	trim := time.NewTicker(time.Minute)
	defer trim.Stop()
	var pending []store.Rejection
	write := func() {
		if len(pending) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := rr.store.RecordRejections(ctx, pending); err != nil {
			rr.logger.Error("record rejections", "count", len(pending), "error", err)
		}
		pending = pending[:0]
	}
	for {
		select {
		case r := <-rr.queue:
			pending = append(pending, r)
			if len(pending) >= 256 {
				write()
			}
		case <-flush.C:
			write()
		case <-trim.C:
			rr.trim()
		case <-rr.stop:
			for {
				select {
				case r := <-rr.queue:
					pending = append(pending, r)
				default:
					write()
					rr.trim()
					return
				}
			}
		}
	}
}

func (rr *RejectionRecorder) trim() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := rr.store.TrimRejections(ctx, rr.keep)
	if err != nil {
		rr.logger.Error("trim rejections", "error", err)
		return
	}
	if n > 0 {
		rr.logger.Info("trimmed rejections", "deleted", n, "keep", rr.keep)
	}
}
