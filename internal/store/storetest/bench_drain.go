package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// drainClaim is how many deliveries BenchDrain claims at once: a quick
// destination's claim (four times its concurrency of 32).
const drainClaim = 128

// BenchDrain measures the store's side of draining a stored backlog:
// claims of 128 due deliveries of one destination, each batch then
// recorded done in one CompleteDeliveries, as a busy worker and its
// outcome committer do. The backlog is refilled whenever it runs dry;
// the refills' CPU time, the client's and the server's, is left out. It
// reports the CPU time of this process per delivery (µs-cpu/delivery)
// and that of the database server when server is not nil
// (µs-server/delivery).
func BenchDrain(b *testing.B, s store.DB, server ServerCPU) {
	ctx := context.Background()
	c := NewClaimer(s)
	refill := func() {
		b.Helper()
		if err := c.Refill(ctx); err != nil {
			b.Fatal(err)
		}
	}
	refill()
	var (
		delivered   int
		cpu, served time.Duration
		since       func() time.Duration
	)
	start := func() {
		cpu -= processCPU(b)
		if server != nil {
			since = server()
		}
	}
	stop := func() {
		cpu += processCPU(b)
		if server != nil {
			served += since()
		}
	}
	start()
	for b.Loop() {
		now := time.Now()
		cs, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: ClaimDestination, Max: drainClaim, Lease: time.Minute, Now: now})
		if err != nil {
			b.Fatal(err)
		}
		outcomes := make([]store.Completion, len(cs))
		for i, cl := range cs {
			outcomes[i] = outcome(cl, store.StatusDone, now)
		}
		if _, err := s.CompleteDeliveries(ctx, outcomes); err != nil {
			b.Fatal(err)
		}
		delivered += len(cs)
		if len(cs) < drainClaim {
			stop()
			b.StopTimer()
			refill()
			b.StartTimer()
			start()
		}
	}
	stop()
	if delivered == 0 {
		b.Fatal("nothing was claimed")
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(delivered), "µs-cpu/delivery")
	if server != nil {
		b.ReportMetric(float64(served.Microseconds())/float64(delivered), "µs-server/delivery")
	}
}
