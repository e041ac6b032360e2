// Package retention deletes finished events once they are past their
// retention: a background pruner that calls the store's Prune in small
// batches, so that no single call holds locks or writes for long, and
// never touches an event with live work. The same calls delete the
// activity counters of the minutes older than the longer of the two
// retentions.
package retention

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Defaults of Options.
const (
	DefaultInterval = time.Minute
	DefaultBatch    = 500
)

// Log keys.
const (
	logComponent = "component"
	logDeleted   = "deleted"
	logBatches   = "batches"
	logDuration  = "duration"
	logError     = "error"
)

// Options configures a Pruner.
type Options struct {
	// Store is where events are deleted.
	Store store.Operations
	// Done is how long events whose deliveries are all done or skipped
	// (or that have none) are kept after they were received; 0 keeps
	// them forever.
	Done time.Duration
	// Dead is how long events with a dead delivery, and no live one, are
	// kept; 0 keeps them forever.
	Dead time.Duration
	// Interval is the pause between passes (default 1m).
	Interval time.Duration
	// Batch is the most events one Prune call deletes (default 500).
	Batch int
	// Logger receives a line per pass that deleted something, and
	// errors; nil discards them.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// OnPass, when set, is told after each pass Run makes how many events
	// it deleted and its error, if it failed: for the relay's metrics.
	OnPass func(deleted int64, err error)
}

// Pruner deletes finished events past their retention.
type Pruner struct {
	opts   Options
	logger *slog.Logger
}

// New returns a Pruner with o's zero fields set to their defaults.
func New(o Options) *Pruner {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Pruner{opts: o, logger: logger.With(logComponent, "retention")}
}

// Run prunes at once and then every Interval until ctx is done. A pass
// that fails is logged and tried again at the next interval.
func (p *Pruner) Run(ctx context.Context) {
	if p.opts.Done <= 0 && p.opts.Dead <= 0 {
		p.logger.Info("retention disabled: events are kept forever")
		return
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		n, err := p.Prune(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			p.logger.Error("retention pass failed", logError, err)
		}
		if p.opts.OnPass != nil {
			p.opts.OnPass(n, err)
		}
		timer.Reset(p.opts.Interval)
	}
}

// Prune runs one pass: it deletes batches of finished events received
// before their retention bound, as of the pass's start, until a batch
// deletes fewer than Batch, and returns how many it deleted in all. It
// stops at the first error, returning what was deleted before it.
func (p *Pruner) Prune(ctx context.Context) (int64, error) {
	began, now := time.Now(), p.opts.Now()
	req := store.PruneRequest{Limit: p.opts.Batch}
	if p.opts.Done > 0 {
		req.DoneBefore = now.Add(-p.opts.Done)
	}
	if p.opts.Dead > 0 {
		req.DeadBefore = now.Add(-p.opts.Dead)
	}
	if req.DoneBefore.IsZero() && req.DeadBefore.IsZero() {
		return 0, nil
	}
	var total int64
	for batches := 1; ; batches++ {
		n, err := p.opts.Store.Prune(ctx, req)
		total += n
		if err != nil {
			return total, fmt.Errorf("prune: %w", err)
		}
		if n < int64(p.opts.Batch) {
			if total > 0 {
				p.logger.Info("retention pass", logDeleted, total, logBatches, batches, logDuration, time.Since(began))
			}
			return total, nil
		}
		if err := ctx.Err(); err != nil {
			return total, fmt.Errorf("prune: %w", err)
		}
	}
}
