package adminapi_test

import (
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/fleet"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

func TestStats(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)

		// Every configured name and every status is there, zeros included.
		var raw map[string]map[string]map[string]float64
		wantStatus(t, "stats", b.call(t, readToken, "GET", "/api/v1/stats", nil, &raw), 200)
		for _, d := range []string{"billing", "dev-alice", "dev-bob"} {
			for _, k := range []string{"pending", "processing", "failed", "done", "skipped", "dead", "oldest_pending_age_seconds"} {
				if v, ok := raw["destinations"][d][k]; !ok || v != 0 {
					t.Errorf("destinations.%s.%s = %v (present %t), want 0", d, k, v, ok)
				}
			}
		}
		if p, ok := raw["paused"]; !ok || len(p) != 0 {
			t.Errorf("paused = %v (present %t), want {}", p, ok)
		}
		for _, s := range []string{"stripe", "github", "gitlab"} {
			for _, k := range []string{"received", "duplicates", "rejected"} {
				if _, ok := raw["sources"][s][k]; !ok {
					t.Errorf("sources.%s.%s is missing", s, k)
				}
			}
		}

		b.receiveAt(time.Now().Add(-time.Hour))
		b.sendStripe(t, "evt_s1", "invoice.paid")
		b.receiveAt(time.Time{})
		b.sendStripe(t, "evt_s2", "customer.subscription.updated")
		claimOne(t, b.api.URL, bobToken, "dev-bob")

		var s adminwire.Stats
		wantStatus(t, "stats", b.call(t, readToken, "GET", "/api/v1/stats", nil, &s), 200)
		if got := s.Destinations["billing"]; got.Pending != 1 || got.OldestPendingAgeSeconds < 3500 {
			t.Errorf("billing = %+v, want 1 pending about an hour old", got)
		}
		if got := s.Destinations["dev-bob"]; got.Pending != 1 || got.Processing != 1 {
			t.Errorf("dev-bob = %+v, want 1 pending and 1 processing", got)
		}
		if got := s.Destinations["dev-alice"]; got.Pending != 2 {
			t.Errorf("dev-alice = %+v, want 2 pending", got)
		}

		// A paused destination shows in paused; its counts stay numbers.
		wantStatus(t, "pause", b.call(t, adminToken, "POST", "/api/v1/destinations/billing/pause", nil, nil), 200)
		raw = nil
		wantStatus(t, "stats", b.call(t, readToken, "GET", "/api/v1/stats", nil, &raw), 200)
		if v, ok := raw["paused"]["billing"]["paused_for_seconds"]; !ok || v < 0 || len(raw["paused"]) != 1 {
			t.Errorf("paused = %v, want billing alone", raw["paused"])
		}
		if got := raw["destinations"]["billing"]["pending"]; got != 1 {
			t.Errorf("billing pending %v after pause, want 1", got)
		}
		if s.Runner != nil {
			t.Errorf("runner = %+v before any process holds the lease, want null", s.Runner)
		}

		// The fleet's runner, from its lease.
		if _, err := b.store.ClaimFleetLease(t.Context(), fleet.RunnerLease, "node-a", time.Minute); err != nil {
			t.Fatal(err)
		}
		s = adminwire.Stats{}
		wantStatus(t, "stats", b.call(t, readToken, "GET", "/api/v1/stats", nil, &s), 200)
		if s.Runner == nil || s.Runner.Node != "node-a" || s.Runner.ForSeconds < 0 || s.Runner.ForSeconds > 60 {
			t.Errorf("runner = %+v, want node-a, since its claim", s.Runner)
		}
		if err := b.store.ReleaseFleetLease(t.Context(), fleet.RunnerLease, "node-a"); err != nil {
			t.Fatal(err)
		}
		s = adminwire.Stats{}
		wantStatus(t, "stats", b.call(t, readToken, "GET", "/api/v1/stats", nil, &s), 200)
		if s.Runner != nil {
			t.Errorf("runner = %+v once the lease is released, want null", s.Runner)
		}
	})
}
