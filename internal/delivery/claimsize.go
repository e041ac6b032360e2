package delivery

import (
	"sync/atomic"
	"time"
)

// A worker whose pushes are quick claims fastClaimFactor times its
// concurrency at once, up to fastClaimCap deliveries (or its concurrency,
// when that is larger). The store's cost per delivery falls as a claim
// grows: a claim of 128 deliveries and their outcomes cost either driver
// about a sixth less time per delivery than claims of 32
// (BenchmarkClaimSizes in the stores' packages). A larger claim queues
// more deliveries behind the senders, which is safe only while pushes are
// quick enough that the last of them still starts well inside its lease.
const (
	fastClaimFactor = 4
	fastClaimCap    = 256
)

// pushSpeed tracks how long a worker's recent pushes took, as a peak that
// rises at once to a slower push and falls back a sixteenth of the way to
// each quicker one, so that one slow push makes the worker claim
// cautiously until a run of quick ones shows the destination is quick
// again. It is safe for concurrent use; updates racing each other lose
// one of the two, which only delays the estimate by a push.
type pushSpeed struct {
	peak atomic.Int64 // a time.Duration
}

// newPushSpeed returns a tracker that starts at timeout: until pushes have
// been timed, the worker assumes they may take all of it.
func newPushSpeed(timeout time.Duration) *pushSpeed {
	p := &pushSpeed{}
	p.peak.Store(int64(timeout))
	return p
}

// note records a push that took d.
func (p *pushSpeed) note(d time.Duration) {
	cur := time.Duration(p.peak.Load())
	if d < cur {
		d = cur - (cur-d)/16
	}
	p.peak.Store(int64(d))
}

// recent returns the tracked peak.
func (p *pushSpeed) recent() time.Duration { return time.Duration(p.peak.Load()) }

// fastClaimFor is what a worker with the given concurrency claims at once
// while its pushes are quick.
func fastClaimFor(concurrency int) int {
	return max(concurrency, min(fastClaimFactor*concurrency, fastClaimCap))
}

// fastWindowFor is the window of a worker with the given concurrency while
// its pushes are quick: concurrency pushes, one fast claim queued behind
// them and room for the next fast claim, so that a claimer can lease the
// next batch while the senders work through the queued one. With room for
// only one queued claim, the next could start only once the queue had
// emptied, and the senders idled for most of every claim: half their time
// in a drain of a SQLite backlog. It is the largest window the worker
// holds, never below windowFor.
func fastWindowFor(concurrency int) int { return concurrency + 2*fastClaimFor(concurrency) }

// claimShape returns how many deliveries the worker claims at once and the
// window it holds claimed and not yet pushed: its concurrency and
// windowFor(concurrency) until its pushes are shown to be quick, then
// fastClaimFor(concurrency) and fastWindowFor(concurrency).
//
// Pushes are quick when the recent peak is at most timeout divided by
// twice the number of rounds of pushes the fast window queues behind the
// pushes under way (two fast claims, each fastClaimFor/concurrency
// rounds). A queued delivery then waits at most half a timeout before its
// push starts, and pushLease, which allows a whole timeout for that wait,
// still covers it.
// Should the destination slow down while large claims are queued,
// sendLoop hands back what waited too long, and the next claims are small
// again.
func (w *worker) claimShape() (batch, window int) {
	fastWindow := fastWindowFor(w.concurrency)
	queued := fastWindow - w.concurrency // what waits behind the pushes
	rounds := (queued + w.concurrency - 1) / w.concurrency
	if w.speed.recent() <= w.sender.timeout/time.Duration(2*rounds) {
		return fastClaimFor(w.concurrency), fastWindow
	}
	return w.concurrency, windowFor(w.concurrency)
}
