package storetest

import (
	"context"
	"fmt"
	"testing"

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
