package adminapi_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// A replay's dry run counts the handler deliveries it would re-arm — of
// the config's handler destinations and of those other replicas
// registered — and warns that their effects apply again; one without
// them carries no warning.
func TestReplayDryRunCountsHandlerDeliveries(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		cfg := parseConfig(t, "")
		orders := config.DefaultDestination()
		orders.Name, orders.Handler, orders.Sources, orders.Types = "orders", true, []string{"stripe"}, []string{"invoice.*"}
		cfg.Destinations = append(cfg.Destinations, orders)
		b := setup(t, driver, cfg)
		ctx := context.Background()
		paid1 := b.sendStripe(t, "evt_h1", "invoice.paid")
		paid2 := b.sendStripe(t, "evt_h2", "invoice.paid")
		sub := b.sendStripe(t, "evt_h3", "customer.subscription.updated")

		// ledger is a handler destination another replica registered:
		// this one has no code for it, and its deliveries still count.
		now := time.Now()
		if _, err := b.store.RegisterHandlers(ctx, []store.HandlerDestination{{Name: "ledger", Sources: []string{"stripe"}}}, now); err != nil {
			t.Fatal(err)
		}
		if n, err := b.store.CreateDeliveries(ctx, []store.BackfillDelivery{{EventID: sub, Destination: "ledger"}}, now); err != nil || n != 1 {
			t.Fatalf("create the ledger delivery: %d, %v", n, err)
		}
		// evt_h1's orders delivery is in flight: a replay leaves it alone.
		claims, err := b.store.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "orders", Max: 1, Lease: time.Minute, Now: time.Now()})
		if err != nil || len(claims) != 1 || claims[0].Delivery.EventID != paid1 {
			t.Fatalf("claim evt_h1's orders delivery: %+v, %v", claims, err)
		}

		dry := func(req map[string]any) adminwire.ReplayResult {
			t.Helper()
			req["dry_run"] = true
			var res adminwire.ReplayResult
			wantStatus(t, fmt.Sprintf("replay %v", req), b.call(t, adminToken, "POST", "/api/v1/replay", req, &res), 200)
			return res
		}
		// Stripe's 3 events have 2 billing, 3 dev-alice, 3 dev-bob, 2
		// orders and 1 ledger deliveries: 11, of which 1 in flight.
		for _, tc := range []struct {
			req      map[string]any
			handlers int64
			warning  string
		}{
			{map[string]any{"source": "stripe"}, 2,
				"2 of the 10 deliveries to re-arm are handler deliveries (ledger 1, orders 1): their handlers run again and their effects apply again."},
			{map[string]any{"ids": []string{paid2}}, 1,
				"1 of the 4 deliveries to re-arm is a handler delivery (orders): its handler runs again and its effects apply again."},
			{map[string]any{"ids": []string{paid2}, "destination": "orders"}, 1,
				"The delivery to re-arm is a handler delivery (orders): its handler runs again and its effects apply again."},
			{map[string]any{"type": "invoice.*", "destination": "orders"}, 1,
				"The delivery to re-arm is a handler delivery (orders): its handler runs again and its effects apply again."},
			{map[string]any{"ids": []string{paid1}, "destination": "orders"}, 0, ""},
			{map[string]any{"source": "stripe", "destination": "billing"}, 0, ""},
			{map[string]any{"source": "github"}, 0, ""},
		} {
			res := dry(tc.req)
			if res.HandlerDeliveries != tc.handlers || res.Warning != tc.warning {
				t.Errorf("dry run of %v = %d handler deliveries, warning %q; want %d, %q", tc.req, res.HandlerDeliveries, res.Warning, tc.handlers, tc.warning)
			}
		}

		// Every delivery of a selection is a handler delivery.
		b.sendStripe(t, "evt_h4", "invoice.paid")
		res := dry(map[string]any{"type": "invoice.*", "destination": "orders"})
		if want := "All 2 deliveries to re-arm are handler deliveries (orders): their handlers run again and their effects apply again."; res.Warning != want {
			t.Errorf("dry run of orders alone warns %q, want %q", res.Warning, want)
		}

		// The replay itself says what it did, not what it warned of.
		var done adminwire.ReplayResult
		wantStatus(t, "replay", b.call(t, adminToken, "POST", "/api/v1/replay", map[string]any{"ids": []string{paid2}}, &done), 200)
		if done.Rearmed != 4 || done.HandlerDeliveries != 0 || done.Warning != "" {
			t.Errorf("replay = %+v, want 4 re-armed and no warning", done)
		}
	})
}
