package adminapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

func TestReplay(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		paid1 := b.sendStripe(t, "evt_r1", "invoice.paid")
		b.sendStripe(t, "evt_r2", "invoice.paid")
		b.sendStripe(t, "evt_r3", "customer.subscription.updated")
		b.send(t, webhook{source: "github", id: "gh-r", typ: "push"})

		// One dev-alice delivery is held by a consumer: replay leaves it
		// alone and counts it in flight.
		var held adminwire.Claimed
		wantStatus(t, "claim", b.call(t, aliceToken, "POST", "/api/v1/destinations/dev-alice/claim?max=1", nil, &held), 200)
		if len(held.Deliveries) != 1 {
			t.Fatalf("claimed %d, want 1", len(held.Deliveries))
		}
		b.woken.take()

		replay := func(req map[string]any) adminwire.ReplayResult {
			t.Helper()
			var res adminwire.ReplayResult
			wantStatus(t, fmt.Sprintf("replay %v", req), b.call(t, adminToken, "POST", "/api/v1/replay", req, &res), 200)
			return res
		}
		// Stripe's events have 2 billing, 3 dev-alice and 3 dev-bob
		// deliveries.
		dry := replay(map[string]any{"source": "stripe", "dry_run": true})
		if dry != (adminwire.ReplayResult{Matched: 8, Rearmed: 0, InFlight: 1, DryRun: true}) {
			t.Errorf("dry run = %+v, want 8 matched, 1 in flight", dry)
		}
		if w := b.woken.take(); len(w) != 0 {
			t.Errorf("a dry run woke %v", w)
		}
		real := replay(map[string]any{"source": "stripe"})
		if real.Matched != dry.Matched || real.Rearmed != dry.Matched-dry.InFlight || real.InFlight != dry.InFlight {
			t.Errorf("replay = %+v after a dry run of %+v", real, dry)
		}
		if w := b.woken.take(); !slices.Equal(w, []string{"billing", "dev-alice", "dev-bob"}) {
			t.Errorf("replay woke %v, want every destination", w)
		}
		var ev adminwire.EventDetail
		wantStatus(t, "show", b.call(t, readToken, "GET", "/api/v1/events/"+paid1, nil, &ev), 200)
		for _, d := range ev.Deliveries {
			if d.Status == "pending" && d.ReplayCount != 1 {
				t.Errorf("%s: replay_count %d after one replay", d.Destination, d.ReplayCount)
			}
		}

		for _, tc := range []struct {
			req  map[string]any
			want int64
		}{
			{map[string]any{"ids": []string{paid1}, "destination": "dev-bob"}, 1},
			{map[string]any{"ids": []string{paid1}}, 3},
			{map[string]any{"type": "invoice.*", "destination": "billing"}, 2},
			{map[string]any{"source": "github"}, 1},
			{map[string]any{"status": "done"}, 0},
			{map[string]any{"source": "stripe", "since": "2000-01-01T00:00:00Z", "until": "2000-01-02T00:00:00Z"}, 0},
		} {
			tc.req["dry_run"] = true
			if got := replay(tc.req); got.Matched != tc.want {
				t.Errorf("replay %v matched %d, want %d", tc.req, got.Matched, tc.want)
			}
		}
		res := replay(map[string]any{"destination": "dev-bob", "ids": []string{paid1}})
		if w := b.woken.take(); res.Rearmed != 1 || !slices.Equal(w, []string{"dev-bob"}) {
			t.Errorf("replay of one dev-bob delivery = %+v and woke %v", res, w)
		}

		for _, bad := range []any{
			map[string]any{},
			map[string]any{"dry_run": true},
			map[string]any{"sorce": "stripe"},
			map[string]any{"status": "lost"},
			map[string]any{"since": "yesterday"},
			map[string]any{"since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"},
			map[string]any{"type": "[ab]*"},
			map[string]any{"ids": []string{""}},
			`{"source": "stripe"`,
			`{"source": "stripe"} {}`,
			``,
		} {
			var e adminwire.Error
			if got := b.call(t, adminToken, "POST", "/api/v1/replay", bad, &e); got != 400 {
				t.Errorf("replay %v: %d, want 400", bad, got)
			}
		}

		// What cannot match is refused and named, not matched as nothing.
		for _, tc := range []struct {
			req  map[string]any
			want string
		}{
			{map[string]any{"source": "strpe"}, `no source "strpe" in the config (did you mean "stripe"?); it has stripe, github`},
			{map[string]any{"destination": "biling", "status": "dead"}, `no destination "biling" in the config (did you mean "billing"?)`},
			{map[string]any{"ids": []string{paid1, "01NOPE", "01NADA"}}, "no event 01NOPE, 01NADA: nothing was replayed"},
		} {
			var e adminwire.Error
			got := b.call(t, adminToken, "POST", "/api/v1/replay", tc.req, &e)
			if got != 404 || !strings.Contains(e.Error, tc.want) {
				t.Errorf("replay %v: %d %q, want 404 with %q", tc.req, got, e.Error, tc.want)
			}
		}
	})
}

func TestBackfill(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		day := mustTime(t, "2026-02-10T09:00:00Z")
		b.receiveAt(day)
		paid := b.sendStripe(t, "evt_b1", "invoice.paid")
		b.sendStripe(t, "evt_b2", "customer.subscription.updated")
		b.send(t, webhook{source: "github", id: "gh-b", typ: "invoice.paid"})
		b.receiveAt(day.Add(48 * time.Hour))
		after := b.sendStripe(t, "evt_b3", "invoice.paid")
		b.receiveAt(time.Time{})

		// A destination added later, as a restart with a new config.
		cfg := parseConfig(t, `
  - name: late
    url: http://127.0.0.1:9/late
    secret: "${BILLING_SIGN}"
    sources: [stripe]
    types: ["invoice.*"]
    ordering_key: data.object.id
`)
		api := b.serve(t, cfg, nil).URL
		backfill := func(req adminwire.BackfillRequest) adminwire.BackfillResult {
			t.Helper()
			var res adminwire.BackfillResult
			wantStatus(t, fmt.Sprintf("backfill %+v", req), call(t, api, adminToken, "POST", "/api/v1/backfill", req, &res), 200)
			return res
		}
		window := adminwire.BackfillRequest{Destination: "late", Since: "2026-02-10T00:00:00Z", Until: "2026-02-11T00:00:00Z"}
		dry := window
		dry.DryRun = true
		if got := backfill(dry); got != (adminwire.BackfillResult{Matched: 1, DryRun: true}) {
			t.Errorf("dry run = %+v, want 1 matched", got)
		}
		b.woken.take()
		if got := backfill(window); got != (adminwire.BackfillResult{Matched: 1, Created: 1}) {
			t.Errorf("backfill = %+v, want 1 created", got)
		}
		if w := b.woken.take(); !slices.Equal(w, []string{"late"}) {
			t.Errorf("backfill woke %v, want [late]", w)
		}
		if got := backfill(window); got != (adminwire.BackfillResult{}) {
			t.Errorf("second backfill = %+v, want nothing", got)
		}

		deliveryTo := func(id, dest string) *adminwire.Delivery {
			t.Helper()
			var ev adminwire.EventDetail
			wantStatus(t, "show", call(t, api, readToken, "GET", "/api/v1/events/"+id, nil, &ev), 200)
			for _, d := range ev.Deliveries {
				if d.Destination == dest {
					return &d
				}
			}
			return nil
		}
		if d := deliveryTo(paid, "late"); d == nil || d.Status != "pending" || d.OrderingKey != "obj_1" {
			t.Errorf("backfilled delivery = %+v, want pending with ordering key obj_1", d)
		}
		if d := deliveryTo(after, "late"); d != nil {
			t.Errorf("an event outside the window got a delivery: %+v", d)
		}

		for _, tc := range []struct {
			req  any
			want int
		}{
			{adminwire.BackfillRequest{Destination: "nope", Since: window.Since, Until: window.Until}, 404},
			{adminwire.BackfillRequest{Destination: "late", Until: window.Until}, 400},
			{adminwire.BackfillRequest{Destination: "late", Since: window.Until, Until: window.Since}, 400},
			{adminwire.BackfillRequest{Destination: "late", Since: "monday", Until: window.Until}, 400},
			{map[string]any{"destination": "late", "since": window.Since, "until": window.Until, "dryrun": true}, 400},
		} {
			var e adminwire.Error
			if got := call(t, api, adminToken, "POST", "/api/v1/backfill", tc.req, &e); got != tc.want {
				t.Errorf("backfill %+v: %d, want %d", tc.req, got, tc.want)
			}
		}
	})
}
