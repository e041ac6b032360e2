package receiver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// rejectionKey names one source's rejections for one reason in one
// interval.
type rejectionKey struct {
	source, reason string
	at             time.Time
}

// RejectionCounter counts each source's rejected requests per reason and
// interval, and adds the counts to the store's, which every receiver of the
// fleet adds to, every second: the signature-failure rule (SignatureRule)
// reads the fleet's total from there, so that rejections spread over
// several processes add up to one alert. Every rejection is counted,
// however fast they come, unlike the rejection record's sample. A crash
// loses at most the last second of counts.
type RejectionCounter struct {
	store  store.FleetAlerts
	step   time.Duration
	window time.Duration
	logger *slog.Logger
	now    func() time.Time

	mu     sync.Mutex
	counts map[rejectionKey]int64 // guarded by mu

	loop *flushLoop
}

// CountStep is the interval rejections are counted in for a rule of window:
// a hundredth of it in whole seconds, and at least one second, so that a
// window is read from at most about a hundred rows per source and reason
// and its start is placed within 1%.
func CountStep(window time.Duration) time.Duration {
	return max(time.Second, (window / 100).Truncate(time.Second))
}

// NewRejectionCounter starts a RejectionCounter for a rule of window. Call
// Close to flush and stop it.
func NewRejectionCounter(st store.FleetAlerts, window time.Duration, logger *slog.Logger) *RejectionCounter {
	c := &RejectionCounter{
		store:  st,
		step:   CountStep(window),
		window: window,
		logger: logger.With("component", "rejection_counts"),
		now:    time.Now,
		counts: make(map[rejectionKey]int64),
	}
	c.loop = startFlushLoop(c.flush)
	return c
}

// rejected counts one rejection of source for reason at.
func (c *RejectionCounter) rejected(source, reason string, at time.Time) {
	if c == nil {
		return
	}
	k := rejectionKey{source, reason, at.UTC().Truncate(c.step)}
	c.mu.Lock()
	c.counts[k]++
	c.mu.Unlock()
}

// Close writes the last counts and stops the counter. Closing twice is a
// no-op.
func (c *RejectionCounter) Close() { c.loop.close() }

// flush adds the counts to the store's. Counts it could not write are put
// back for the next flush, but for those no window read from now on would
// count any more.
func (c *RejectionCounter) flush() {
	c.mu.Lock()
	if len(c.counts) == 0 {
		c.mu.Unlock()
		return
	}
	batch := make([]store.RejectionCount, 0, len(c.counts))
	for k, n := range c.counts {
		batch = append(batch, store.RejectionCount{Source: k.source, Reason: k.reason, At: k.at, N: n})
	}
	clear(c.counts)
	c.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.store.CountRejections(ctx, batch); err != nil {
		c.logger.Warn("write rejection counts", "error", err)
		stale := c.now().Add(-c.window - c.step)
		c.mu.Lock()
		for _, b := range batch {
			if b.At.After(stale) {
				c.counts[rejectionKey{b.Source, b.Reason, b.At}] += b.N
			}
		}
		c.mu.Unlock()
	}
}
