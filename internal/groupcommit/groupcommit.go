// Package groupcommit turns many concurrent single-event writes into few
// durable transactions. Each caller hands in one event and waits; a small
// number of committers take whatever has queued up while the previous commit
// was running, store it in one transaction with one fsync, and answer every
// caller. Under load the batch grows by itself; when idle a batch holds one
// event and nothing waits for company.
package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// ErrClosed is returned by Commit after Close has begun.
var ErrClosed = errors.New("groupcommit: closed")

// Options tune a Committer. Zero values take the defaults.
type Options struct {
	// Committers is how many transactions may be in flight at once: 1 suits
	// SQLite's single writer, a few suit PostgreSQL. Default 1.
	Committers int
	// MaxBatch caps the events in one transaction. Default 256.
	MaxBatch int
	// MaxBatchBytes caps the body bytes in one transaction, so a burst of
	// large bodies does not build one huge statement. Default 16 MiB.
	MaxBatchBytes int
	// CommitTimeout bounds one transaction. Default 10s.
	CommitTimeout time.Duration
	// Observe, when set, is called after every commit with the batch size,
	// how long the transaction took and its error.
	Observe func(size int, took time.Duration, err error)
}

func (o *Options) setDefaults() {
	if o.Committers <= 0 {
		o.Committers = 1
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 256
	}
	if o.MaxBatchBytes <= 0 {
		o.MaxBatchBytes = 16 << 20
	}
	if o.CommitTimeout <= 0 {
		o.CommitTimeout = 10 * time.Second
	}
}

// Committer batches Ingest calls to a store. It is safe for concurrent use.
type Committer struct {
	store  store.Store
	opts   Options
	logger *slog.Logger

	queue chan *request

	mu     sync.RWMutex // guards closed against sends on queue
	closed bool
	wg     sync.WaitGroup
}

type request struct {
	item     store.IngestItem
	inserted bool
	err      error
	done     chan struct{}
}

var requestPool = sync.Pool{New: func() any { return &request{done: make(chan struct{}, 1)} }}

// New starts a Committer writing to s. Call Close to stop it.
func New(s store.Store, opts Options, logger *slog.Logger) *Committer {
	opts.setDefaults()
	c := &Committer{
		store:  s,
		opts:   opts,
		logger: logger.With("component", "groupcommit"),
		queue:  make(chan *request, opts.MaxBatch*opts.Committers),
	}
	for range opts.Committers {
		c.wg.Add(1)
		go c.run()
	}
	return c
}

// Commit stores one event with its deliveries and returns once the
// transaction holding it is durable. It reports whether the event was new
// (false: the same source and provider id was already stored). The error
// wraps store.ErrUnavailable when the store could not commit, and is
// ErrClosed after Close. A cancelled ctx stops the wait only before the
// event has been handed to a committer.
func (c *Committer) Commit(ctx context.Context, item store.IngestItem) (bool, error) {
	r := requestPool.Get().(*request)
	r.item = item

	c.mu.RLock()
	if c.closed {
		c.mu.RUnlock()
		c.recycle(r)
		return false, ErrClosed
	}
	select {
	case c.queue <- r:
	case <-ctx.Done():
		c.mu.RUnlock()
		c.recycle(r)
		return false, fmt.Errorf("queue event: %w", ctx.Err())
	}
	c.mu.RUnlock()

	// Once queued, the event will be committed or failed; wait for the
	// answer even if the caller has gone, so the request is not reused
	// while a committer still holds it.
	<-r.done
	inserted, err := r.inserted, r.err
	c.recycle(r)
	return inserted, err
}

func (c *Committer) recycle(r *request) {
	*r = request{done: r.done}
	requestPool.Put(r)
}

// Close stops accepting events, commits everything already queued, and
// waits for the committers to finish.
func (c *Committer) Close() {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.queue)
	}
	c.mu.Unlock()
	c.wg.Wait()
}

func (c *Committer) run() {
	defer c.wg.Done()
	batch := make([]*request, 0, c.opts.MaxBatch)
	items := make([]store.IngestItem, 0, c.opts.MaxBatch)
	for {
		first, ok := <-c.queue
		if !ok {
			return
		}
		batch = append(batch[:0], first)
		size := len(first.item.Event.Body)
	fill:
		for len(batch) < c.opts.MaxBatch && size < c.opts.MaxBatchBytes {
			select {
			case r, ok := <-c.queue:
				if !ok {
					break fill
				}
				batch = append(batch, r)
				size += len(r.item.Event.Body)
			default:
				break fill
			}
		}
		items = items[:0]
		for _, r := range batch {
			items = append(items, r.item)
		}
		c.commit(batch, items)
		clear(items)
	}
}

// commit writes one batch and answers its callers. When a batch fails for a
// reason other than an unavailable store, each event is retried alone so
// that one bad event cannot fail the others.
func (c *Committer) commit(batch []*request, items []store.IngestItem) {
	inserted, err := c.ingest(items)
	if err != nil && len(batch) > 1 && !errors.Is(err, store.ErrUnavailable) {
		c.logger.Warn("batch commit failed; retrying events one by one", "size", len(batch), "error", err)
		for i := range batch {
			c.commit(batch[i:i+1], items[i:i+1])
		}
		return
	}
	for i, r := range batch {
		if err != nil {
			r.err = err
		} else {
			r.inserted = inserted[i]
		}
		r.done <- struct{}{}
	}
}

func (c *Committer) ingest(items []store.IngestItem) ([]bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.CommitTimeout)
	defer cancel()
	start := time.Now()
	inserted, err := c.store.Ingest(ctx, items)
	if err == nil && len(inserted) != len(items) {
		err = fmt.Errorf("ingest batch: store answered %d results for %d events", len(inserted), len(items))
	}
	if c.opts.Observe != nil {
		c.opts.Observe(len(items), time.Since(start), err)
	}
	if err != nil {
		return nil, fmt.Errorf("commit batch of %d: %w", len(items), err)
	}
	return inserted, nil
}
