package storetest

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// The leased path's shape: a busy receiver's batch of events, each fanned
// out to leasedFanOut destinations, and the outcome committer's batch.
const (
	leasedEvents  = 8
	leasedFanOut  = 4
	leasedOutcome = 48
)

// ServerCPU starts a reading of a database server's CPU time and returns
// the function that tells how much it has spent since.
type ServerCPU func() (since func() time.Duration)

// BenchLeased measures the store's side of the common delivery: events
// ingested in batches of 8 with their 4 deliveries leased at ingest, then
// every delivery finished done in batches of 48, as the outcome committer
// writes them. It reports the CPU time of this process per delivery
// (µs-cpu/delivery; all of the store's work on SQLite, the client's on
// PostgreSQL), that of the database server when server is not nil
// (µs-server/delivery) and deliveries/s.
func BenchLeased(b *testing.B, s store.DB, server ServerCPU) {
	ctx := context.Background()
	body := randomBytes(benchBodySize, 3)
	var (
		n, delivered int
		pending      []store.Completion
	)
	complete := func(cs []store.Completion) {
		recorded, err := s.CompleteDeliveries(ctx, cs)
		if err != nil {
			b.Fatalf("CompleteDeliveries: %v", err)
		}
		for i, ok := range recorded {
			if !ok {
				b.Fatalf("outcome of delivery %d not recorded", cs[i].DeliveryID)
			}
		}
		delivered += len(cs)
	}
	serverSince := func() time.Duration { return 0 }
	if server != nil {
		serverSince = server()
	}
	cpu0 := processCPU(b)
	for b.Loop() {
		items := make([]store.IngestItem, leasedEvents)
		leases := make([]*store.Lease, 0, leasedEvents*leasedFanOut)
		until := time.Now().Add(time.Minute)
		for i := range items {
			e := newEvent("stripe", fmt.Sprintf("evt_leased_%d", n))
			e.Body = body
			n++
			items[i] = store.IngestItem{Event: e}
			for d := range leasedFanOut {
				l := &store.Lease{Token: fmt.Sprintf("tok_%d_%d", n, d), Until: until}
				leases = append(leases, l)
				items[i].Deliveries = append(items[i].Deliveries,
					store.NewDelivery{Destination: fmt.Sprintf("dest_%d", d), Lease: l})
			}
		}
		if _, err := s.Ingest(ctx, items); err != nil {
			b.Fatalf("Ingest: %v", err)
		}
		now := time.Now()
		for i, l := range leases {
			pending = append(pending, store.Completion{
				DeliveryID: l.DeliveryID, EventID: items[i/leasedFanOut].Event.ID, LeaseToken: l.Token,
				Deferred: l.Deferred, Destination: items[i/leasedFanOut].Deliveries[i%leasedFanOut].Destination,
				Status: store.StatusDone, Now: now,
				Attempt: store.Attempt{AttemptedAt: now, StatusCode: 200, Duration: 3 * time.Millisecond},
			})
			if len(pending) == leasedOutcome {
				complete(pending)
				pending = pending[:0]
			}
		}
	}
	if len(pending) > 0 {
		complete(pending)
	}
	cpu := processCPU(b) - cpu0
	b.ReportMetric(float64(cpu.Microseconds())/float64(delivered), "µs-cpu/delivery")
	if server != nil {
		b.ReportMetric(float64(serverSince().Microseconds())/float64(delivered), "µs-server/delivery")
	}
	b.ReportMetric(float64(delivered)/b.Elapsed().Seconds(), "deliveries/s")
}

// processCPU returns the CPU time, user and system, this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
