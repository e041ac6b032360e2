package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// WriteFunc writes one batch in one transaction and returns one result per
// item, in order. On error nothing of the batch may have been committed.
type WriteFunc[T, R any] func(ctx context.Context, items []T) ([]R, error)

// Batcher turns many concurrent single-item writes into few transactions:
// a small number of committers take whatever has queued up while the
// previous transaction ran, write it with one WriteFunc call, and answer
// every caller. It is safe for concurrent use.
type Batcher[T, R any] struct {
	write  WriteFunc[T, R]
	size   func(T) int // bytes an item adds to a batch; nil counts none
	opts   Options
	logger *slog.Logger

	queue     chan *request[T, R]
	gathering sync.Mutex   // held by the committer filling the next batch
	writing   atomic.Int32 // committers writing a batch now
	lastTaken time.Time    // when the previous batch took its first item; guarded by gathering
	pool      sync.Pool

	mu     sync.RWMutex // guards closed against sends on queue
	closed bool
	wg     sync.WaitGroup
}

// request is one queued item and how its caller is answered: on done
// when notify is nil (Commit), else by calling notify (Submit).
type request[T, R any] struct {
	item   T
	res    R
	err    error
	done   chan struct{}
	notify func(R, error)
	now    bool // its batch is written without lingering
}

// NewBatcher starts a Batcher writing with write. size, when not nil,
// tells the bytes an item adds to a batch, which Options.MaxBatchBytes
// caps. Call Close to stop it.
func NewBatcher[T, R any](write WriteFunc[T, R], size func(T) int, opts Options, logger *slog.Logger) *Batcher[T, R] {
	opts.setDefaults()
	b := &Batcher[T, R]{
		write:  write,
		size:   size,
		opts:   opts,
		logger: logger.With("component", "groupcommit"),
		queue:  make(chan *request[T, R], opts.MaxBatch*opts.Committers),
	}
	b.pool.New = func() any { return &request[T, R]{done: make(chan struct{}, 1)} }
	for range opts.Committers {
		b.wg.Add(1)
		go b.run()
	}
	return b
}

// Commit writes one item and returns its result once the transaction
// holding it has committed. The error is ErrClosed after Close. A
// cancelled ctx stops the wait only before the item has been queued.
func (b *Batcher[T, R]) Commit(ctx context.Context, item T) (R, error) {
	r := b.pool.Get().(*request[T, R])
	r.item = item
	if err := b.enqueue(ctx, r); err != nil {
		b.recycle(r)
		var zero R
		return zero, err
	}
	// Once queued, the item will be written or failed; wait for the
	// answer even if the caller has gone, so the request is not reused
	// while a committer still holds it.
	<-r.done
	res, err := r.res, r.err
	b.recycle(r)
	return res, err
}

// Submit queues one item and returns without waiting for it to be
// written; notify is called with its result, from a committer, once the
// transaction holding it has committed or failed. notify must not block.
// Submit waits while the queue is full, and returns ErrClosed after Close
// (notify is then never called).
func (b *Batcher[T, R]) Submit(item T, notify func(R, error)) error {
	r := &request[T, R]{item: item, notify: notify}
	return b.enqueue(context.Background(), r)
}

// SubmitNow queues one item as Submit does, for a caller that something
// waits on: the batch that takes it is written without lingering.
func (b *Batcher[T, R]) SubmitNow(item T, notify func(R, error)) error {
	r := &request[T, R]{item: item, notify: notify, now: true}
	return b.enqueue(context.Background(), r)
}

func (b *Batcher[T, R]) enqueue(ctx context.Context, r *request[T, R]) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return ErrClosed
	}
	select {
	case b.queue <- r:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("queue item: %w", ctx.Err())
	}
}

func (b *Batcher[T, R]) recycle(r *request[T, R]) {
	*r = request[T, R]{done: r.done}
	b.pool.Put(r)
}

// Close stops accepting items, writes everything already queued, and
// waits for the committers to finish.
func (b *Batcher[T, R]) Close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *Batcher[T, R]) itemSize(item T) int {
	if b.size == nil {
		return 0
	}
	return b.size(item)
}

func (b *Batcher[T, R]) run() {
	defer b.wg.Done()
	batch := make([]*request[T, R], 0, b.opts.MaxBatch)
	items := make([]T, 0, b.opts.MaxBatch)
	for {
		batch = b.gather(batch[:0])
		if len(batch) == 0 {
			return
		}
		items = items[:0]
		for _, r := range batch {
			items = append(items, r.item)
		}
		b.commit(batch, items)
		clear(items)
		clear(batch)
	}
}

// gather fills batch with the next batch to write: what has queued up,
// and, when that is less than a full batch of items none of which was
// submitted with SubmitNow, what arrives until Options.Linger has passed
// since the first was taken (with Options.LingerWhenBusy, only when the
// queue runs dry while the store is busy).
// One committer gathers at a time, so the others write side by side
// instead of splitting what arrives. An empty batch means the Batcher is
// closed and drained.
func (b *Batcher[T, R]) gather(batch []*request[T, R]) []*request[T, R] {
	b.gathering.Lock()
	defer b.gathering.Unlock()
	first, ok := <-b.queue
	if !ok {
		return batch
	}
	taken := time.Now()
	recent := taken.Sub(b.lastTaken) < b.opts.BusyWithin
	b.lastTaken = taken
	batch = append(batch, first)
	size, now := b.itemSize(first.item), first.now
	var linger *time.Timer
	defer func() {
		if linger != nil {
			linger.Stop()
		}
	}()
	for len(batch) < b.opts.MaxBatch && size < b.opts.MaxBatchBytes {
		var r *request[T, R]
		select {
		case r, ok = <-b.queue:
		default:
			if now || !b.lingers(recent) {
				return batch
			}
			if linger == nil {
				linger = time.NewTimer(b.opts.Linger - time.Since(taken))
			}
			select {
			case r, ok = <-b.queue:
			case <-linger.C:
				return batch
			}
		}
		if !ok {
			return batch
		}
		batch = append(batch, r)
		size += b.itemSize(r.item)
		now = now || r.now
	}
	return batch
}

// lingers reports whether a committer holding a batch that is not full
// waits for more: when Options.Linger is set and, with
// Options.LingerWhenBusy, the store is busy — the previous batch was taken
// recently (within Options.BusyWithin) or another committer is writing.
func (b *Batcher[T, R]) lingers(recent bool) bool {
	if b.opts.Linger <= 0 {
		return false
	}
	return !b.opts.LingerWhenBusy || recent || b.writing.Load() > 0
}

// commit writes one batch and answers its callers. When a batch fails for
// a reason other than an unavailable store, each item is retried alone so
// that one bad item cannot fail the others.
func (b *Batcher[T, R]) commit(batch []*request[T, R], items []T) {
	res, err := b.writeBatch(items)
	if err != nil && len(batch) > 1 && !errors.Is(err, store.ErrUnavailable) {
		b.logger.Warn("batch commit failed; retrying items one by one", "size", len(batch), "error", err)
		for i := range batch {
			b.commit(batch[i:i+1], items[i:i+1])
		}
		return
	}
	for i, r := range batch {
		if err != nil {
			r.err = err
		} else {
			r.res = res[i]
		}
		if r.notify != nil {
			r.notify(r.res, r.err)
			continue
		}
		r.done <- struct{}{}
	}
}

func (b *Batcher[T, R]) writeBatch(items []T) ([]R, error) {
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.CommitTimeout)
	defer cancel()
	start := time.Now()
	b.writing.Add(1)
	res, err := b.write(ctx, items)
	b.writing.Add(-1)
	if err == nil && len(res) != len(items) {
		err = fmt.Errorf("write batch: %d results for %d items", len(res), len(items))
	}
	if b.opts.Observe != nil {
		b.opts.Observe(len(items), time.Since(start), err)
	}
	if err != nil {
		return nil, fmt.Errorf("commit batch of %d: %w", len(items), err)
	}
	return res, nil
}
