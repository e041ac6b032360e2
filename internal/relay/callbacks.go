package relay

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/delivery"
)

// Callbacks are an application's functions told of the failures this
// process records (see delivery.Watcher): each is called from a goroutine
// of hookrelay's, one call at a time, after the outcome is committed.
type Callbacks struct {
	// Dead, when set, is told of every delivery that went dead.
	Dead func(delivery.Alert)
	// AttemptFailed, when set, is told of every attempt recorded as
	// failed.
	AttemptFailed func(delivery.FailedAttempt)
	// QueueSize bounds the calls waiting to be made; a call that finds
	// the queue full is dropped, counted and logged.
	QueueSize int
}

// The names of the callbacks, the callback label of
// hookrelay_callbacks_dropped_total.
const (
	callbackDead          = "dead"
	callbackAttemptFailed = "attempt_failed"
)

// dropLogEvery is how often, at most, a dropped call is logged.
const dropLogEvery = time.Second

// callbackQueue is the delivery.Watcher of an application's Callbacks: it
// queues what it is told, bounded, and calls the callbacks from a
// goroutine of its own, so that a slow callback never holds up the
// recording of an outcome. A call that does not fit is dropped, counted on
// hookrelay_callbacks_dropped_total and logged (at most once a second).
type callbackQueue struct {
	cb      Callbacks
	logger  *slog.Logger
	dropped *prometheus.CounterVec
	calls   chan queuedCall
	done    chan struct{} // closed once the goroutine has called or dropped every call

	mu     sync.Mutex
	closed bool // guarded by mu; calls is closed

	abandon atomic.Bool  // the shutdown stopped waiting: drop what is left
	lastLog atomic.Int64 // unix nanoseconds of the last logged drop
}

// queuedCall is one call of a callback, with what its log lines name.
type queuedCall struct {
	callback    string
	destination string
	deliveryID  int64
	call        func()
}

// newCallbackQueue registers the drop counter with reg and starts calling
// cb's callbacks; close stops it.
func newCallbackQueue(cb Callbacks, reg prometheus.Registerer, logger *slog.Logger) (*callbackQueue, error) {
	dropped := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "hookrelay_callbacks_dropped_total",
		Help: "Calls of the application's OnDead and OnAttemptFailed callbacks dropped because their queue was full or the relay shut down first, by callback (dead, attempt_failed).",
	}, []string{"callback"})
	if err := reg.Register(dropped); err != nil {
		return nil, fmt.Errorf("register callback metrics: %w", err)
	}
	dropped.WithLabelValues(callbackDead)
	dropped.WithLabelValues(callbackAttemptFailed)
	q := &callbackQueue{
		cb:      cb,
		logger:  logger.With("component", "callbacks"),
		dropped: dropped,
		calls:   make(chan queuedCall, max(cb.QueueSize, 1)),
		done:    make(chan struct{}),
	}
	go q.run()
	return q, nil
}

// Dead queues the call of the Dead callback, if any.
func (q *callbackQueue) Dead(a delivery.Alert) {
	if q.cb.Dead != nil {
		q.push(queuedCall{callbackDead, a.Destination, a.DeliveryID, func() { q.cb.Dead(a) }})
	}
}

// AttemptFailed queues the call of the AttemptFailed callback, if any.
func (q *callbackQueue) AttemptFailed(f delivery.FailedAttempt) {
	if q.cb.AttemptFailed != nil {
		q.push(queuedCall{callbackAttemptFailed, f.Destination, f.DeliveryID, func() { q.cb.AttemptFailed(f) }})
	}
}

// push queues c without blocking, or drops it when the queue is full or
// closed.
func (q *callbackQueue) push(c queuedCall) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		q.drop(c, "the relay has shut down")
		return
	}
	select {
	case q.calls <- c:
	default:
		q.drop(c, "the queue is full: a callback is slower than the failures come")
	}
}

// drop counts c as dropped, and logs it unless a drop was logged less
// than dropLogEvery ago.
func (q *callbackQueue) drop(c queuedCall, why string) {
	q.dropped.WithLabelValues(c.callback).Inc()
	now := time.Now().UnixNano()
	last := q.lastLog.Load()
	if now-last < int64(dropLogEvery) || !q.lastLog.CompareAndSwap(last, now) {
		return
	}
	q.logger.Warn("callback call dropped; hookrelay_callbacks_dropped_total counts every one", "callback", c.callback,
		"destination", c.destination, "delivery_id", c.deliveryID, "reason", why)
}

// run calls the queued callbacks one at a time until the queue is closed
// and empty.
func (q *callbackQueue) run() {
	defer close(q.done)
	for c := range q.calls {
		if q.abandon.Load() {
			q.drop(c, "the shutdown ended before it was called")
			continue
		}
		q.call(c)
	}
}

// call calls c, logging a panic rather than taking the process down.
func (q *callbackQueue) call(c queuedCall) {
	defer func() {
		if p := recover(); p != nil {
			q.logger.Error("callback panicked", "callback", c.callback, "destination", c.destination,
				"delivery_id", c.deliveryID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	c.call()
}

// close stops taking calls and waits until those queued have been made,
// or until ctx ends: then the rest are dropped, and a callback still
// running is left to return on its own. It is safe to call more than once.
func (q *callbackQueue) close(ctx context.Context) {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.calls)
	}
	q.mu.Unlock()
	select {
	case <-q.done:
	case <-ctx.Done():
		q.abandon.Store(true)
		q.logger.Warn("shutdown ended before every queued callback was called; the rest are dropped", "queued", len(q.calls))
	}
}
