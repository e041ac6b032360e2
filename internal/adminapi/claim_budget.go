package adminapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
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

// largestBody returns the largest body the destination's sources accept,
// which is the most one claimed delivery can carry.
func largestBody(cfg *config.Config, dest *config.Destination) int64 {
	var largest int64
	for _, name := range dest.Sources {
		if src, ok := cfg.Source(name); ok {
			largest = max(largest, int64(src.MaxBody))
		}
	}
	if largest <= 0 {
		return int64(config.DefaultMaxBody)
	}
	return largest
}

// claimRows returns how many more deliveries of bodies of up to perBody
// bytes each fit in a claim answer that holds answered bytes of bodies:
// at most asked, at most what is left of claimAnswerBytes; 0 when full.
func claimRows(asked int, perBody, answered int64) int {
	return max(0, min(asked, int((claimAnswerBytes-answered)/max(perBody, 1))))
}

// claimsInFlight is the process's budget of claimed bodies.
var claimsInFlight = newByteBudget(claimsInFlightBytes)

// writeClaimed writes the claim answer out, one delivery at a time: each
// body is encoded when its turn comes, and its bytes go back to the budget
// (held counts what is still held) once written, so the answer never sits
// whole in memory.
func writeClaimed(w http.ResponseWriter, out Claimed, claims []store.Claim, held *int64) error {
	w.Header().Set(APIHeader, "v1")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if _, err := io.WriteString(w, `{"deliveries":[`); err != nil {
		return err
	}
	for i := range out.Deliveries {
		d := out.Deliveries[i]
		d.BodyBase64 = base64.StdEncoding.EncodeToString(claims[i].Event.Body)
		b, err := json.Marshal(d)
		if err != nil {
			return err
		}
		if i > 0 {
			b = append([]byte{','}, b...)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		n := int64(len(claims[i].Event.Body))
		claims[i].Event.Body = nil
		claimsInFlight.give(n)
		*held -= n
	}
	_, err := fmt.Fprintf(w, "],\"lease_seconds\":%d}\n", out.LeaseSeconds)
	return err
}
