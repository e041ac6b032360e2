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
func BenchIngest(b *testing.B, s store.DB) { benchIngest(b, s, false) }

// BenchIngestSigned is BenchIngest with a signature digest on every
// event, as a source whose scheme signs the body alone has them: what the
// replayed-signature rule costs ingest.
func BenchIngestSigned(b *testing.B, s store.DB) { benchIngest(b, s, true) }

func benchIngest(b *testing.B, s store.DB, signed bool) {
	ctx := context.Background()
	body := randomBytes(benchBodySize, 2)
	n := 0
	for b.Loop() {
		items := make([]store.IngestItem, benchBatch)
		for i := range items {
			e := newEvent("stripe", fmt.Sprintf("evt_bench_%d", n))
			e.Body = body
			items[i] = item(e, "billing")
			if signed {
				items[i].SignatureDigest = digestOf(e.ProviderEventID)
			}
			n++
		}
		if _, err := s.Ingest(ctx, items); err != nil {
			b.Fatalf("Ingest: %v", err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}

// BenchClaim measures claiming 32 due deliveries of one destination and
// completing each as done (a Claimer), on s with whatever history it
// holds. The backlog is refilled, off the clock, whenever it runs dry. It
// reports the median claim and deliveries/s.
func BenchClaim(b *testing.B, s store.DB) { benchClaim(b, s, 0) }

// BenchClaimCountingLost is BenchClaim with the claims counting lost
// attempts, as the delivery engine's do (store.ClaimRequest's
// MaxAttempts): what that costs a claim that finds none.
func BenchClaimCountingLost(b *testing.B, s store.DB) { benchClaim(b, s, 7) }

func benchClaim(b *testing.B, s store.DB, maxAttempts int) {
	ctx := context.Background()
	c := NewClaimer(s)
	c.MaxAttempts = maxAttempts
	if err := c.Refill(ctx); err != nil {
		b.Fatal(err)
	}
	var (
		claims    []time.Duration
		delivered int
	)
	for b.Loop() {
		took, n, err := c.Claim(ctx)
		if err != nil {
			b.Fatal(err)
		}
		claims = append(claims, took)
		delivered += n
		if n < ClaimBatch {
			b.StopTimer()
			if err := c.Refill(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	slices.Sort(claims)
	b.ReportMetric(float64(claims[len(claims)/2].Microseconds()), "µs/claim-p50")
	b.ReportMetric(float64(delivered)/b.Elapsed().Seconds(), "deliveries/s")
}

// ReplayBench is what BenchReplayUnderIngest replays: a selection of
// deliveries the caller seeded, and how many it holds.
type ReplayBench struct {
	Filter  store.EventFilter
	Matched int64
}

// ingestProbeEvery is the pace of the ingest probe: one event per call,
// as a lone webhook arrives, a hundred a second.
const ingestProbeEvery = 10 * time.Millisecond

// BenchReplayUnderIngest measures a replay of rb on s while a probe
// ingests one event at a time beside it, and, in the same run and first,
// the probe alone for as long as the replay then takes (at most 5 s):
// the baseline. It reports s/replay and the probe's p50, p99 and max
// latency, alone and during the replay. Run it with -benchtime=1x.
func BenchReplayUnderIngest(b *testing.B, s store.DB, rb ReplayBench) {
	ctx := context.Background()
	n := 0
	probe := func(stop <-chan struct{}) []time.Duration {
		var lat []time.Duration
		tick := time.NewTicker(ingestProbeEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return lat
			case <-tick.C:
			}
			n++
			start := time.Now()
			e := newEvent("probe", fmt.Sprintf("evt_probe_%d", n))
			e.ReceivedAt = start
			if _, err := s.Ingest(ctx, []store.IngestItem{item(e, "probe")}); err != nil {
				b.Errorf("probe Ingest: %v", err)
				return lat
			}
			lat = append(lat, time.Since(start))
		}
	}
	for b.Loop() {
		stop := make(chan struct{})
		time.AfterFunc(5*time.Second, func() { close(stop) })
		alone := probe(stop)

		stop = make(chan struct{})
		var during []time.Duration
		probed := make(chan struct{})
		go func() {
			defer close(probed)
			during = probe(stop)
		}()
		start := time.Now()
		res, err := s.Replay(ctx, store.ReplayRequest{Filter: rb.Filter, Actor: "bench", Now: start})
		took := time.Since(start)
		close(stop)
		<-probed
		if err != nil {
			b.Fatalf("Replay: %v", err)
		}
		if res.Matched != rb.Matched || res.Rearmed != rb.Matched {
			b.Fatalf("replay = %+v, want %d matched and re-armed", res, rb.Matched)
		}
		b.ReportMetric(took.Seconds(), "s/replay")
		reportLatencies(b, "alone", alone)
		reportLatencies(b, "replay", during)
	}
}

// reportLatencies reports the p50, p99 and max of lat, in ms, as
// what-p50-ms and so on.
func reportLatencies(b *testing.B, what string, lat []time.Duration) {
	if len(lat) == 0 {
		b.Fatalf("no %s latencies measured", what)
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(lat[len(lat)/2]), "ingest-"+what+"-p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "ingest-"+what+"-p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "ingest-"+what+"-max-ms")
	b.ReportMetric(float64(len(lat)), "ingest-"+what+"-n")
}

// BenchStats measures Stats on s, and beside it, in the same run,
// groupBy — the count of every delivery by destination and status that
// Stats made before its counts were kept (the baseline). It reports the
// mean ms of each.
func BenchStats(b *testing.B, s store.DB, groupBy func(ctx context.Context) error) {
	ctx := context.Background()
	const baselineRuns = 3
	start := time.Now()
	for range baselineRuns {
		if err := groupBy(ctx); err != nil {
			b.Fatalf("group by: %v", err)
		}
	}
	baseline := time.Since(start) / baselineRuns
	for b.Loop() {
		if _, err := s.Stats(ctx, time.Now()); err != nil {
			b.Fatalf("Stats: %v", err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/stats")
	b.ReportMetric(float64(baseline.Microseconds())/1000, "ms/groupby")
}

// BenchSearch measures SearchEvents for a page of 50 on s, seeded with
// provider ids evt_1, evt_2, … and bodies that name sub_N for N below
// 1000: by a provider id prefix that a few hundred ids have, by one every
// id has, by idPrefix (the start of stored hookrelay ids), and by text in
// every event's body and in one of a thousand, reading DefaultScanLimit
// events. It reports ms/search.
func BenchSearch(b *testing.B, s store.DB, idPrefix string) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		req  store.SearchRequest
	}{
		{"provider-prefix", store.SearchRequest{IDPrefix: "evt_1234"}},
		{"provider-prefix-every", store.SearchRequest{IDPrefix: "evt_"}},
		{"provider-prefix-source", store.SearchRequest{IDPrefix: "evt_1234", Filter: store.EventFilter{Source: "s3"}}},
		{"hookrelay-prefix", store.SearchRequest{IDPrefix: idPrefix}},
		{"text-every", store.SearchRequest{Text: []byte(`"type":"invoice.paid"`)}},
		{"text-rare", store.SearchRequest{Text: []byte(`"sub_123"`)}},
		{"text-rare-source", store.SearchRequest{Text: []byte(`"sub_123"`), Filter: store.EventFilter{Source: "s3"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			bc.req.Limit = 50
			var p store.SearchPage
			for b.Loop() {
				var err error
				if p, err = s.SearchEvents(ctx, bc.req); err != nil {
					b.Fatalf("SearchEvents: %v", err)
				}
			}
			if len(p.Events) == 0 {
				b.Fatalf("SearchEvents(%+v) found nothing", bc.req)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/search")
			b.ReportMetric(float64(len(p.Events)), "found")
			b.ReportMetric(float64(p.Scanned), "scanned")
		})
	}
}
