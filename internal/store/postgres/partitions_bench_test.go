package postgres

import (
	"testing"

	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// benchDays is how many daily partitions the partitioned benchmarks'
// event logs have: a month's retention.
const benchDays = 31

// BenchmarkIngestPartitioned is BenchmarkIngest on an event log
// partitioned by day, with a month of partitions: the dedupe's key
// written to event_keys before each event.
func BenchmarkIngestPartitioned(b *testing.B) {
	s, _ := partitionedSince(b, benchDays)
	storetest.BenchIngest(b, s)
}

// BenchmarkClaimPartitioned is BenchmarkClaim on an event log partitioned
// by day, with a month of partitions, which the claim's queries by
// destination and the outcomes' by delivery id probe each.
func BenchmarkClaimPartitioned(b *testing.B) {
	s, _ := partitionedSince(b, benchDays)
	storetest.BenchClaim(b, s)
}
