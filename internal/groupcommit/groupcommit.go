// Package groupcommit turns many concurrent single-item writes into few
// transactions: events as they are ingested (Committer) and the outcomes of
// delivery attempts (Outcomes). Each caller hands in one item; a small
// number of committers take whatever has queued up while the previous
// commit was running, write it in one transaction, and answer every caller.
// Under load the batch grows by itself; when idle a batch holds one item and
// nothing waits for company.
package groupcommit

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// ErrClosed is returned by Commit, Submit and Record after Close has begun.
var ErrClosed = errors.New("groupcommit: closed")

// Options tune a Batcher. Zero values take the defaults.
type Options struct {
	// Committers is how many transactions may be in flight at once: 1 suits
	// SQLite's single writer, a few suit PostgreSQL. Default 1.
	Committers int
	// MaxBatch caps the items in one transaction. Default 256.
	MaxBatch int
	// MaxBatchBytes caps the bytes in one transaction (body bytes for
	// events), so a burst of large bodies does not build one huge
	// statement. Default 16 MiB.
	MaxBatchBytes int
	// CommitTimeout bounds one transaction. Default 10s.
	CommitTimeout time.Duration
	// Linger is how long a committer that holds fewer than MaxBatch items
	// waits for more before it writes them, counted from when it took the
	// first; a batch holding an item submitted with SubmitNow is written
	// at once. Zero never waits: under load the batch grows by itself
	// while the previous one is written, but at a moderate rate each
	// transaction then holds a handful of items and pays its fixed cost
	// for each handful.
	Linger time.Duration
	// LingerWhenBusy keeps Linger to the times the store is busy: another
	// committer is writing a batch, or the previous batch took its first
	// item less than BusyWithin ago. An item that finds the store idle is
	// written at once, as with no Linger, and only items that arrive while
	// it is busy wait for company. It suits callers that wait for their
	// item's commit, such as a webhook's answer: an idle relay answers as
	// fast as without a linger, a busy one writes fewer, larger
	// transactions.
	LingerWhenBusy bool
	// BusyWithin, with LingerWhenBusy, counts the store busy for this long
	// after a batch took its first item: items that arrive that often
	// find company within the linger. Without it, at a moderate rate a
	// commit is often over before the next item arrives, no committer is
	// writing then, and every transaction holds an item or two. Zero
	// counts only a committer writing.
	BusyWithin time.Duration
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
	b *Batcher[store.IngestItem, store.IngestOutcome]
}

// New starts a Committer writing to s. Call Close to stop it.
func New(s store.Store, opts Options, logger *slog.Logger) *Committer {
	size := func(item store.IngestItem) int { return len(item.Event.Body) }
	return &Committer{b: NewBatcher(s.Ingest, size, opts, logger)}
}

// Commit stores one event with its deliveries and returns once the
// transaction holding it is durable. It reports what the store did with
// it: stored, a duplicate, or a replayed signature (see
// store.IngestOutcome). The error wraps store.ErrUnavailable when the
// store could not commit, and is ErrClosed after Close. A cancelled ctx
// stops the wait only before the event has been handed to a committer.
func (c *Committer) Commit(ctx context.Context, item store.IngestItem) (store.IngestOutcome, error) {
	return c.b.Commit(ctx, item)
}

// Close stops accepting events, commits everything already queued, and
// waits for the committers to finish.
func (c *Committer) Close() { c.b.Close() }
