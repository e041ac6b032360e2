package storetest

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Shape of the claim benchmark: what a busy delivery worker asks for.
const (
	// ClaimBatch is how many due deliveries one claim asks for.
	ClaimBatch = 32
	// ClaimBacklog is how many pending deliveries Refill stores.
	ClaimBacklog = 64 * ClaimBatch
	// ClaimDestination is the destination claimed from.
	ClaimDestination = "billing"
)

// Claimer claims from one destination's backlog the way a busy delivery
// worker does: BenchClaim drives it, and so does the benchmark command's
// claim check, which times it on two databases in turn.
type Claimer struct {
	// MaxAttempts is the destination's max attempts the claims pass, as
	// the delivery engine does, so that each claim also looks for lost
	// attempts; 0 claims without.
	MaxAttempts int

	s store.DB
	n int // backlog events stored so far, for unique provider ids
}

// NewClaimer returns a Claimer over s, whose backlog is empty until
// Refill.
func NewClaimer(s store.DB) *Claimer { return &Claimer{s: s} }

// Refill stores ClaimBacklog new events, each with one pending delivery
// to ClaimDestination.
func (c *Claimer) Refill(ctx context.Context) error {
	items := make([]store.IngestItem, ClaimBacklog)
	for i := range items {
		items[i] = item(newEvent("stripe", fmt.Sprintf("evt_claim_%d", c.n)), ClaimDestination)
		c.n++
	}
	if _, err := c.s.Ingest(ctx, items); err != nil {
		return fmt.Errorf("refill backlog: %w", err)
	}
	return nil
}

// Claim claims up to ClaimBatch due deliveries of ClaimDestination and
// completes each as done. It returns how long the claim alone took and
// how many deliveries it got: fewer than ClaimBatch means the backlog ran
// dry, and the caller refills it, off the clock.
func (c *Claimer) Claim(ctx context.Context) (took time.Duration, n int, err error) {
	start := time.Now()
	cs, err := c.s.ClaimDeliveries(ctx, store.ClaimRequest{
		Destination: ClaimDestination, Max: ClaimBatch, Lease: time.Minute, Now: start, MaxAttempts: c.MaxAttempts,
	})
	if err != nil {
		return 0, 0, fmt.Errorf("claim: %w", err)
	}
	took = time.Since(start)
	for _, cl := range cs {
		if err := c.s.CompleteDelivery(ctx, outcome(cl, store.StatusDone, time.Now())); err != nil {
			return took, 0, fmt.Errorf("complete: %w", err)
		}
	}
	return took, len(cs), nil
}
