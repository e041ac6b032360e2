package adminapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// failDirect claims the oldest due delivery of destination from the store
// and records its attempt with code and text, dead or failed.
func failDirect(t *testing.T, s store.DB, destination string, status store.DeliveryStatus, code int, text string) {
	t.Helper()
	ctx, now := context.Background(), time.Now()
	cs, err := s.ClaimDeliveries(ctx, store.ClaimRequest{Destination: destination, Max: 1, Lease: time.Minute, Now: now})
	if err != nil || len(cs) != 1 {
		t.Fatalf("claim %s: %d deliveries, %v", destination, len(cs), err)
	}
	c := store.Completion{DeliveryID: cs[0].Delivery.ID, LeaseToken: cs[0].LeaseToken, Status: status, Now: now,
		Attempt: store.Attempt{AttemptedAt: now, StatusCode: code, Error: text}}
	if status == store.StatusFailed {
		c.NextAttemptAt = now.Add(time.Hour)
	}
	if err := s.CompleteDelivery(ctx, c); err != nil {
		t.Fatal(err)
	}
}

// TestFailures groups failures as a pull consumer's acks and pushes
// record them, answers every status the route can, and gives each group a
// window that a replay of its destination and status selects it by.
func TestFailures(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		cfg := parseConfig(t, `  - {name: app, url: "http://127.0.0.1:9/app", secret: "${BILLING_SIGN}", sources: [github]}
`)
		for i := range cfg.Destinations {
			if cfg.Destinations[i].Name == "app" {
				cfg.Destinations[i].Handler = true // handled in code, as a library registers it
			}
		}
		b := setup(t, driver, cfg)
		var empty adminwire.Failures
		wantStatus(t, "no failures", b.call(t, readToken, "GET", "/api/v1/failures", nil, &empty), 200)
		if empty.Groups == nil || len(empty.Groups) != 0 {
			t.Fatalf("failures of a fresh store = %+v, want an empty list", empty)
		}

		b.sendStripe(t, "evt_f1", "invoice.paid") // billing, dev-alice, dev-bob
		b.sendStripe(t, "evt_f2", "invoice.paid")
		b.send(t, webhook{source: "github", id: "gh-f1", typ: "push"}) // dev-alice, app
		b.send(t, webhook{source: "github", id: "gh-f2", typ: "push"})

		// dev-bob's consumer answers what its local server did.
		for _, ack := range []adminwire.AckRequest{
			{Outcome: "failed", StatusCode: 503, Error: "status 503"},
			{Outcome: "failed", Error: "dial tcp 127.0.0.1:3000: connect: connection refused"},
		} {
			d := claimOne(t, b.api.URL, bobToken, "dev-bob")
			ack.LeaseToken = d.LeaseToken
			wantStatus(t, "ack", b.call(t, bobToken, "POST", ackPath(d.ID), ack, nil), 200)
		}
		failDirect(t, b.store, "billing", store.StatusDead, 0, "tls: failed to verify certificate: x509: certificate signed by unknown authority")
		// A handler's own error and its panic are one kind.
		failDirect(t, b.store, "app", store.StatusDead, 0, "order 42 not found")
		failDirect(t, b.store, "app", store.StatusDead, 0, "handler panicked: nil map")

		var got adminwire.Failures
		wantStatus(t, "failures", b.call(t, readToken, "GET", "/api/v1/failures", nil, &got), 200)
		kinds := map[string]adminwire.FailureGroup{}
		for i, g := range got.Groups {
			kinds[g.Destination+" "+g.Status+" "+g.Kind] = g
			if i > 0 && g.LastSeen.After(got.Groups[i-1].LastSeen) {
				t.Errorf("group %d was last seen after the one before it: %+v", i, got.Groups)
			}
		}
		want := map[string]int64{
			"dev-bob failed 5xx": 1, "dev-bob failed refused": 1, "billing dead tls": 1, "app dead handler": 2,
		}
		if len(kinds) != len(want) {
			t.Errorf("groups %v, want %v", kinds, want)
		}
		for k, n := range want {
			if g, ok := kinds[k]; !ok || g.Count != n {
				t.Errorf("%s: %+v, want %d", k, g, n)
			}
		}
		if g := kinds["dev-bob failed 5xx"]; g.ExampleError != "status 503" || g.ExampleStatusCode != 503 || g.ExampleEventID == "" ||
			g.ReceivedSince == nil || g.ReceivedUntil == nil || g.FirstSeen.IsZero() {
			t.Errorf("dev-bob's 5xx group: %+v, want its example, window and times", g)
		}
		if g := kinds["app dead handler"]; g.ExampleError != "handler panicked: nil map" {
			t.Errorf("app's merged group: %+v, want the newer event's example", g)
		}

		// The group's destination, status and window replay it.
		g := kinds["dev-bob failed refused"]
		var dry adminwire.ReplayResult
		wantStatus(t, "replay dry run", b.call(t, adminToken, "POST", "/api/v1/replay", map[string]any{
			"destination": g.Destination, "status": g.Status, "dry_run": true,
			"since": g.ReceivedSince.Format(time.RFC3339Nano), "until": g.ReceivedUntil.Format(time.RFC3339Nano),
		}, &dry), 200)
		if dry.Matched != 1 {
			t.Errorf("replay of the refused group's window matches %d, want 1", dry.Matched)
		}

		var bob adminwire.Failures
		wantStatus(t, "dev-bob's", b.call(t, readToken, "GET", "/api/v1/failures?destination=dev-bob", nil, &bob), 200)
		if len(bob.Groups) != 2 {
			t.Errorf("dev-bob's failures: %+v, want 2 groups", bob.Groups)
		}
		var e adminwire.Error
		wantStatus(t, "a typo", b.call(t, readToken, "GET", "/api/v1/failures?destination=dev-bbo", nil, &e), 404)
		if !strings.Contains(e.Error, `did you mean "dev-bob"`) {
			t.Errorf("404 says %q", e.Error)
		}
		wantStatus(t, "an unknown parameter", b.call(t, readToken, "GET", "/api/v1/failures?status=dead", nil, &e), 400)
		if !strings.Contains(e.Error, `unknown parameter "status"`) {
			t.Errorf("400 says %q", e.Error)
		}
		wantStatus(t, "no token", b.call(t, "", "GET", "/api/v1/failures", nil, nil), 401)
		wantStatus(t, "a consumer", b.call(t, aliceToken, "GET", "/api/v1/failures", nil, nil), 403)
		wantStatus(t, "admin", b.call(t, adminToken, "GET", fmt.Sprintf("/api/v1/failures?destination=%s", "billing"), nil, nil), 200)
	})
}
