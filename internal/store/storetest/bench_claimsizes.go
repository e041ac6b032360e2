package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// claimSizes are the claim sizes BenchClaimSizes compares: a worker's
// claim of its concurrency (32), and the four times that it claims while
// its pushes are quick.
var claimSizes = []int{32, 128}

// BenchClaimSizes measures, for each of claimSizes, claiming that many
// due deliveries of one destination and recording them all as done in one
// CompleteDeliveries batch, as a busy worker and its outcome committer do.
// The backlog is refilled, off the clock, whenever it runs dry. It reports
// the store's time per delivery for the claim and for the outcomes.
func BenchClaimSizes(b *testing.B, s store.DB) {
	c := NewClaimer(s) // one for every size, so that its event ids stay unique
	for _, size := range claimSizes {
		b.Run(fmt.Sprintf("claim=%d", size), func(b *testing.B) {
			benchClaimSize(b, s, c, size)
		})
	}
}

func benchClaimSize(b *testing.B, s store.DB, c *Claimer, size int) {
	ctx := context.Background()
	if err := c.Refill(ctx); err != nil {
		b.Fatal(err)
	}
	var (
		claiming, completing time.Duration
		delivered            int
	)
	for b.Loop() {
		start := time.Now()
		cs, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: ClaimDestination, Max: size, Lease: time.Minute, Now: start})
		if err != nil {
			b.Fatal(err)
		}
		claimed := time.Now()
		outcomes := make([]store.Completion, len(cs))
		for i, cl := range cs {
			outcomes[i] = outcome(cl, store.StatusDone, claimed)
		}
		if _, err := s.CompleteDeliveries(ctx, outcomes); err != nil {
			b.Fatal(err)
		}
		claiming += claimed.Sub(start)
		completing += time.Since(claimed)
		delivered += len(cs)
		if len(cs) < size {
			b.StopTimer()
			if err := c.Refill(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	if delivered == 0 {
		b.Fatal("nothing was claimed")
	}
	b.ReportMetric(float64(claiming.Microseconds())/float64(delivered), "µs-claim/delivery")
	b.ReportMetric(float64(completing.Microseconds())/float64(delivered), "µs-outcome/delivery")
}
