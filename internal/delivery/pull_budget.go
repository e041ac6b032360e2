package delivery

import (
	"context"
	"sync"
	"time"
)

// Byte budgets of the claims: what bounds the memory pull consumers can
// make the relay hold. A claim answer carries whole bodies, so the budgets
// count body bytes; an answer is written one delivery at a time, so a body
// costs its own bytes until written, plus its base64 and JSON for the one
// delivery being written.
const (
	// claimAnswerBytes bounds the bodies of one claim answer: a claim asks
	// the store for no more deliveries than this many bytes of the largest
	// bodies its destination's sources accept. One delivery is always
	// allowed, whatever its size.
	claimAnswerBytes = 16 << 20
	// claimsInFlightBytes bounds the bodies of every claim answer being
	// read or written at once, in the whole process. A claim that finds it
	// spent waits for room (no longer than its own wait, and at least
	// claimBudgetWait) and otherwise answers with no delivery.
	claimsInFlightBytes = 64 << 20
	// claimBudgetWait is the least a claim waits for room in
	// claimsInFlight before answering with no delivery.
	claimBudgetWait = time.Second
)

// byteBudget is a count of bytes that holders take and give back; take
// waits while the budget is spent. It is safe for concurrent use.
type byteBudget struct {
	size int64

	mu    sync.Mutex
	used  int64         // guarded by mu; may exceed size (see force)
	freed chan struct{} // guarded by mu; closed and replaced when bytes are given back
}

func newByteBudget(size int64) *byteBudget {
	return &byteBudget{size: size, freed: make(chan struct{})}
}

// take waits until n bytes are free (n is cut to the budget's size, so
// that a single large holder can always proceed alone) and takes them. It
// returns the bytes taken, or ctx's error with nothing taken.
func (b *byteBudget) take(ctx context.Context, n int64) (int64, error) {
	n = min(n, b.size)
	for {
		b.mu.Lock()
		if b.used+n <= b.size {
			b.used += n
			b.mu.Unlock()
			return n, nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-freed:
		}
	}
}

// tryTake takes up to n bytes, as many as are free now, without waiting,
// and returns how many it took.
func (b *byteBudget) tryTake(n int64) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	n = max(0, min(n, b.size-b.used))
	b.used += n
	return n
}

// force takes n bytes at once, even beyond the budget: for bytes already
// in memory that a holder learns of late.
func (b *byteBudget) force(n int64) {
	b.mu.Lock()
	b.used += n
	b.mu.Unlock()
}

// give hands n bytes back.
func (b *byteBudget) give(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}

// inUse returns the bytes taken now.
func (b *byteBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// claimRows returns how many more deliveries of bodies of up to perBody
// bytes each fit in a claim answer that holds answered bytes of bodies:
// at most asked, at most what is left of claimAnswerBytes; 0 when full.
func claimRows(asked int, perBody, answered int64) int {
	return max(0, min(asked, int((claimAnswerBytes-answered)/max(perBody, 1))))
}

// claimsInFlight is the process's budget of claimed bodies.
var claimsInFlight = newByteBudget(claimsInFlightBytes)
