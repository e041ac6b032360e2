package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Benchmark shape: what a busy receiver hands the store.
const (
	benchBatch    = 64
	benchBodySize = 2 << 10
)

// BenchIngest measures Ingest on s with batches of 64 new events of 2 KiB
// each, one destination each, and reports events/s.
func BenchIngest(b *testing.B, s store.Store) {
	ctx := context.Background()
	body := randomBytes(benchBodySize, 2)
	n := 0
	for b.Loop() {
		items := make([]store.IngestItem, benchBatch)
		for i := range items {
			e := newEvent("stripe", fmt.Sprintf("evt_bench_%d", n))
			e.Body = body
			items[i] = item(e, "billing")
			n++
		}
		if _, err := s.Ingest(ctx, items); err != nil {
			b.Fatalf("Ingest: %v", err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}

// Claim benchmark shape: what a busy delivery worker asks for.
const (
	benchClaim   = 32
	benchBacklog = 64 * benchClaim
)

// BenchClaim measures claiming 32 due deliveries of one destination and
// completing each as done, on s with whatever history it holds. The
// backlog is refilled, off the clock, whenever it runs dry. It reports
// the median claim and deliveries/s.
func BenchClaim(b *testing.B, s store.Store) {
	q, ok := s.(store.Queue)
	if !ok {
		b.Fatalf("%T does not implement store.Queue", s)
	}
	ctx := context.Background()
	n := 0
	refill := func() {
		items := make([]store.IngestItem, benchBacklog)
		for i := range items {
			items[i] = item(newEvent("stripe", fmt.Sprintf("evt_claim_%d", n)), "billing")
			n++
		}
		if _, err := s.Ingest(ctx, items); err != nil {
			b.Fatalf("Ingest: %v", err)
		}
	}
	refill()
	var (
		claims    []time.Duration
		delivered int
	)
	for b.Loop() {
		start := time.Now()
		cs, err := q.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: benchClaim, Lease: time.Minute, Now: start})
		if err != nil {
			b.Fatalf("ClaimDeliveries: %v", err)
		}
		claims = append(claims, time.Since(start))
		for _, c := range cs {
			if err := q.CompleteDelivery(ctx, outcome(c, store.StatusDone, time.Now())); err != nil {
				b.Fatalf("CompleteDelivery: %v", err)
			}
		}
		delivered += len(cs)
		if len(cs) < benchClaim {
			b.StopTimer()
			refill()
			b.StartTimer()
		}
	}
	slices.Sort(claims)
	b.ReportMetric(float64(claims[len(claims)/2].Microseconds()), "µs/claim-p50")
	b.ReportMetric(float64(delivered)/b.Elapsed().Seconds(), "deliveries/s")
}
