package delivery

import (
	"context"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// claimWaiter is what the claim loops of push and handler destinations share:
// the destination they claim for, and how they wait between two claims.
// Both workers embed it.
type claimWaiter struct {
	engine *Engine
	queue  store.Queue
	name   string
	wake   chan struct{} // Wake, full claims and outcomes that free a key; capacity 1
}

func newClaimWaiter(e *Engine, q store.Queue, name string) claimWaiter {
	return claimWaiter{engine: e, queue: q, name: name, wake: make(chan struct{}, 1)}
}

// wakeUp ends the loop's current sleep, or the next one, at once.
func (l *claimWaiter) wakeUp() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// idleWait returns how long to sleep after a claim at claimedAt found fewer
// deliveries than it asked for: until the next one is due, at most the poll
// interval. A delivery that was already due at the claim yet was not claimed
// waits behind its ordering key or another worker's lease; recorded outcomes
// that may free a key and Wake end the sleep sooner, so it is not polled
// for in a busy loop.
func (l *claimWaiter) idleWait(ctx context.Context, claimedAt time.Time) time.Duration {
	at, ok, err := l.queue.NextDue(ctx, l.name)
	if err != nil || !ok || !at.After(claimedAt) {
		return l.engine.poll
	}
	return min(l.engine.poll, at.Sub(l.engine.now()))
}

// idle waits after a claim at claimedAt found fewer deliveries than it
// asked for. The watcher, one loop of the destination's, sleeps idleWait;
// the others sleep as long only when a delivery falls due sooner than the
// poll interval, and otherwise until a wake, so that an idle destination
// is polled by one claim at a time. Polls of every loop, each on its own
// clock, cost a claim apiece and, when two ran at once, held all the
// window's room that ingest leases from (see reserveIngest): an event
// that arrived then was created pending, and claimed.
func (l *claimWaiter) idle(ctx context.Context, claimedAt time.Time, watcher bool) {
	d := l.idleWait(ctx, claimedAt)
	if watcher || d < l.engine.poll {
		l.sleep(ctx, d)
		return
	}
	select {
	case <-ctx.Done():
	case <-l.wake:
	}
}

// sleep waits for d, a wake or ctx, whichever comes first.
func (l *claimWaiter) sleep(ctx context.Context, d time.Duration) { pause(ctx, d, l.wake) }

// pause waits for d, a signal on wake (never, when nil) or ctx, whichever
// comes first.
func pause(ctx context.Context, d time.Duration, wake <-chan struct{}) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-wake:
	case <-t.C:
	}
}
