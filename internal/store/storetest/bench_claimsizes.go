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
// Every other batch records each attempt with headers (benchSentHeaders
// and benchAnsweredHeaders), as a push does: the two, alternating in one
// run, are the store's cost of keeping the headers of every attempt,
// which is why only failed ones keep them (docs/performance.md). The
// backlog is refilled, off the clock, whenever it runs dry. It reports the
// store's time per delivery for the claim, for the outcomes without
// headers, and for those with.
func BenchClaimSizes(b *testing.B, s store.DB) {
	c := NewClaimer(s) // one for every size, so that its event ids stay unique
	for _, size := range claimSizes {
		b.Run(fmt.Sprintf("claim=%d", size), func(b *testing.B) {
			benchClaimSize(b, s, c, size)
		})
	}
}

// benchSentHeaders and benchAnsweredHeaders are the headers of a push as
// its attempt keeps them: what hookrelay sends, and what a small web
// framework answers.
var (
	benchSentHeaders = map[string][]string{
		"Content-Type":          {"application/json"},
		"Webhook-Id":            {"01JTESTEVENT0000000000000A"},
		"Webhook-Timestamp":     {"1772600767"},
		"Webhook-Signature":     {"v1,K5oZfzN9…"},
		"Hookrelay-Source":      {"stripe"},
		"Hookrelay-Event-Type":  {"customer.subscription.updated"},
		"Hookrelay-Event-Id":    {"evt_1NfA5dLkdIwHu7ixsjpWl0rT"},
		"Hookrelay-Attempt":     {"1"},
		"Hookrelay-Occurred-At": {"2026-03-04T05:06:07Z"},
		"Hookrelay-Replay":      {"0"},
		"User-Agent":            {"hookrelay"},
	}
	benchAnsweredHeaders = map[string][]string{
		"Content-Type":   {"application/json; charset=utf-8"},
		"Content-Length": {"16"},
		"Date":           {"Wed, 04 Mar 2026 05:06:07 GMT"},
		"Server":         {"nginx"},
		"X-Request-Id":   {"8f14e45f-ceea-467e-a0a6-0e2d7c1b9a3f"},
		"Vary":           {"Accept-Encoding"},
	}
)

func benchClaimSize(b *testing.B, s store.DB, c *Claimer, size int) {
	ctx := context.Background()
	if err := c.Refill(ctx); err != nil {
		b.Fatal(err)
	}
	var (
		claiming  time.Duration
		delivered int
		// completing and completed, by whether the attempts had headers.
		completing [2]time.Duration
		completed  [2]int
		headers    int
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
			if headers == 1 {
				outcomes[i].Attempt.RequestHeaders = benchSentHeaders
				outcomes[i].Attempt.ResponseHeaders = benchAnsweredHeaders
			}
		}
		if _, err := s.CompleteDeliveries(ctx, outcomes); err != nil {
			b.Fatal(err)
		}
		claiming += claimed.Sub(start)
		completing[headers] += time.Since(claimed)
		completed[headers] += len(cs)
		headers = 1 - headers
		delivered += len(cs)
		if len(cs) < size {
			b.StopTimer()
			if err := c.Refill(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	if completed[0] == 0 || completed[1] == 0 {
		b.Fatal("nothing was claimed")
	}
	b.ReportMetric(float64(claiming.Microseconds())/float64(delivered), "µs-claim/delivery")
	b.ReportMetric(float64(completing[0].Microseconds())/float64(completed[0]), "µs-outcome/delivery")
	b.ReportMetric(float64(completing[1].Microseconds())/float64(completed[1]), "µs-outcome-headers/delivery")
}
