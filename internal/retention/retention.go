// Package retention deletes finished events once they are past their
// retention: a background pruner that calls the store's Prune in small
// batches, so that no single call holds locks or writes for long, and
// never touches an event with live work. The same calls delete the
// activity counters of the minutes older than the longer of the two
// retentions. On a PostgreSQL event log partitioned by time, each pass
// first maintains the partitions: it creates those ahead and drops those
// past the longer retention whole (see Options.Period).
package retention

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
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
	logComponent  = "component"
	logDeleted    = "deleted"
	logBatches    = "batches"
	logDuration   = "duration"
	logError      = "error"
	logPartition  = "partition"
	logEvents     = "events"
	logDeliveries = "deliveries"
	logLive       = "live"
	logLocked     = "locked"
)

// waitingRepeat is how often a partition kept past its retention by live
// deliveries is logged again.
const waitingRepeat = time.Hour

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
	// Period, when set, is the period of a partitioned event log's
	// partitions, which each pass maintains through Partitions before it
	// prunes: it creates those of the periods ahead, and drops whole each
	// one that ended before the longer retention and holds no live
	// delivery. Prune then deletes row by row only what the shorter
	// retention asks of the periods not yet dropped, and what a partition
	// kept by a live delivery holds past the longer one (the partition
	// goes once that delivery is finished). With both retentions equal,
	// nothing is deleted row by row but in those kept partitions.
	Period store.PartitionPeriod
	// Partitions maintains the partitions when Period is set.
	Partitions store.Partitions
}

// Pruner deletes finished events past their retention.
type Pruner struct {
	opts   Options
	logger *slog.Logger

	mu     sync.Mutex
	warned map[string]time.Time // guarded by mu: when each waiting partition was last logged
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
	return &Pruner{opts: o, logger: logger.With(logComponent, "retention"), warned: map[string]time.Time{}}
}

// Run prunes at once and then every Interval until ctx is done. A pass
// that fails is logged and tried again at the next interval.
func (p *Pruner) Run(ctx context.Context) {
	if p.opts.Done <= 0 && p.opts.Dead <= 0 && p.opts.Period == store.PartitionsOff {
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
// stops at the first error, returning what was deleted before it. With
// Period set it first maintains the partitions; a maintenance that fails
// leaves the row-level pass to run, and its error is returned after it.
func (p *Pruner) Prune(ctx context.Context) (int64, error) {
	began, now := time.Now(), p.opts.Now()
	req := store.PruneRequest{Limit: p.opts.Batch}
	if p.opts.Done > 0 {
		req.DoneBefore = now.Add(-p.opts.Done)
	}
	if p.opts.Dead > 0 {
		req.DeadBefore = now.Add(-p.opts.Dead)
	}
	var maintained error // a failed maintenance leaves the row-level pass to do
	if p.opts.Period != store.PartitionsOff {
		req, maintained = p.maintain(ctx, now, req)
	}
	if req.DoneBefore.IsZero() && req.DeadBefore.IsZero() {
		return 0, maintained
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
			return total, maintained
		}
		if err := ctx.Err(); err != nil {
			return total, fmt.Errorf("prune: %w", err)
		}
	}
}
