package adminapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

func ackPath(id int64) string { return fmt.Sprintf("/api/v1/deliveries/%d/ack", id) }

// claimOne claims from a destination and fails unless it gets exactly one
// delivery.
func claimOne(t *testing.T, base, token, dest string) adminwire.ClaimedDelivery {
	t.Helper()
	var c adminwire.Claimed
	wantStatus(t, "claim "+dest, call(t, base, token, "POST", "/api/v1/destinations/"+dest+"/claim?max=1", nil, &c), 200)
	if len(c.Deliveries) != 1 {
		t.Fatalf("claim %s: %d deliveries, want 1", dest, len(c.Deliveries))
	}
	return c.Deliveries[0]
}

// TestClaimSignsAsAPush checks what a pull consumer receives: the raw bytes
// and headers that verify with the destination's secret, as a push would.
func TestClaimSignsAsAPush(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		body := []byte("{\"id\": \"evt_pull\", \"type\": \"invoice.paid\"}\n")
		id := b.send(t, webhook{source: "stripe", id: "evt_pull", typ: "invoice.paid", body: body})

		var c adminwire.Claimed
		wantStatus(t, "claim", b.call(t, aliceToken, "POST", "/api/v1/destinations/dev-alice/claim?max=5", nil, &c), 200)
		if c.LeaseSeconds != 60 || len(c.Deliveries) != 1 {
			t.Fatalf("claim = %+v, want one delivery under a 60s lease", c)
		}
		d := c.Deliveries[0]
		got, err := base64.StdEncoding.DecodeString(d.BodyBase64)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("body %q (%v), want %q", got, err, body)
		}
		if d.EventID != id || d.Source != "stripe" || d.Type != "invoice.paid" || d.ProviderEventID != "evt_pull" || d.Attempt != 1 || d.LeaseToken == "" {
			t.Errorf("claimed delivery = %+v", d)
		}
		h := http.Header{}
		for k, v := range d.Headers {
			h.Set(k, v)
		}
		for k, want := range map[string]string{
			"Webhook-Id": id, "Hookrelay-Source": "stripe", "Hookrelay-Event-Type": "invoice.paid",
			"Hookrelay-Event-Id": "evt_pull", "Hookrelay-Attempt": "1", "Hookrelay-Replay": "0", "Content-Type": "application/json",
		} {
			if got := h.Get(k); got != want {
				t.Errorf("header %s = %q, want %q", k, got, want)
			}
		}
		scheme, err := signature.New(signature.Options{Scheme: "standard", Secrets: []string{testEnv["ALICE_SIGN"]}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := scheme.Verify(signature.Request{Header: h, Body: got}); err != nil {
			t.Errorf("the claimed headers do not verify with dev-alice's secret: %v", err)
		}

		// Held under its lease, the delivery is not claimed again.
		var again adminwire.Claimed
		wantStatus(t, "claim again", b.call(t, aliceToken, "POST", "/api/v1/destinations/dev-alice/claim", nil, &again), 200)
		if len(again.Deliveries) != 0 {
			t.Errorf("a held delivery was claimed again")
		}
	})
}

func TestAck(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		b.sendStripe(t, "evt_ack", "invoice.paid")
		api := b.api.URL
		ack := func(base, token string, d adminwire.ClaimedDelivery, req adminwire.AckRequest) (int, adminwire.AckResult) {
			t.Helper()
			if req.LeaseToken == "" {
				req.LeaseToken = d.LeaseToken
			}
			var res adminwire.AckResult
			return call(t, base, token, "POST", ackPath(d.ID), req, &res), res
		}

		// done; a second ack under the same lease is refused.
		bob := claimOne(t, api, bobToken, "dev-bob")
		if code, res := ack(api, bobToken, bob, adminwire.AckRequest{Outcome: "done", StatusCode: 204}); code != 200 || res.Status != "done" {
			t.Errorf("ack done: %d %+v", code, res)
		}
		if code, _ := ack(api, bobToken, bob, adminwire.AckRequest{Outcome: "done"}); code != 409 {
			t.Errorf("second ack: %d, want 409", code)
		}

		// A consumer cannot ack another destination's delivery, nor turn
		// the lease into one of its own.
		alice := claimOne(t, api, aliceToken, "dev-alice")
		if code, _ := ack(api, bobToken, alice, adminwire.AckRequest{Outcome: "done"}); code != 403 {
			t.Errorf("bob acks alice's delivery: %d, want 403", code)
		}
		if code, _ := ack(api, bobToken, alice, adminwire.AckRequest{Outcome: "done", LeaseToken: rewrite(t, alice.LeaseToken, "n", "dev-bob")}); code != 409 {
			t.Errorf("bob acks alice's delivery with a rewritten lease: %d, want 409", code)
		}
		for _, req := range []adminwire.AckRequest{
			{Outcome: "finished"},
			{Outcome: "done", LeaseToken: "garbage"},
			{Outcome: "done", StatusCode: 42},
		} {
			if code, _ := ack(api, aliceToken, alice, req); code != 400 {
				t.Errorf("ack %+v: %d, want 400", req, code)
			}
		}
		if code := call(t, api, aliceToken, "POST", ackPath(alice.ID+1000), adminwire.AckRequest{Outcome: "done", LeaseToken: alice.LeaseToken}, nil); code != 400 {
			t.Errorf("ack of another delivery id with this lease: %d, want 400", code)
		}

		// failed follows dev-alice's policy: max_attempts 2, backoff 1m,
		// whatever attempt number and claim time the lease token claims.
		forged := alice
		forged.LeaseToken = rewrite(t, rewrite(t, alice.LeaseToken, "a", -1000), "c", 0)
		code, res := ack(api, aliceToken, forged, adminwire.AckRequest{Outcome: "failed", Error: "local 500", StatusCode: 500})
		if code != 200 || res.Status != "failed" || res.NextAttemptAt == nil {
			t.Fatalf("ack failed: %d %+v", code, res)
		}
		if wait := time.Until(*res.NextAttemptAt); wait < 40*time.Second || wait > 80*time.Second {
			t.Errorf("next attempt in %s, want about 1m", wait)
		}
		var none adminwire.Claimed
		wantStatus(t, "claim before due", call(t, api, aliceToken, "POST", "/api/v1/destinations/dev-alice/claim", nil, &none), 200)
		if len(none.Deliveries) != 0 {
			t.Errorf("a failed delivery was claimed before it was due")
		}
		// Two minutes on, the second attempt is due; its failure is the last.
		later := b.serve(t, b.cfg, func() time.Time { return time.Now().Add(2 * time.Minute) }).URL
		second := claimOne(t, later, aliceToken, "dev-alice")
		if second.Attempt != 2 {
			t.Errorf("second claim is attempt %d, want 2", second.Attempt)
		}
		second.LeaseToken = rewrite(t, second.LeaseToken, "a", -1000)
		if code, res := ack(later, aliceToken, second, adminwire.AckRequest{Outcome: "failed"}); code != 200 || res.Status != "dead" || res.NextAttemptAt != nil {
			t.Errorf("last failed attempt: %d %+v, want dead", code, res)
		}
		var detail adminwire.EventDetail
		wantStatus(t, "show", call(t, api, adminToken, "GET", "/api/v1/events/"+alice.EventID, nil, &detail), 200)
		for _, d := range detail.Deliveries {
			for _, a := range d.AttemptLog {
				if time.Since(a.AttemptedAt) > time.Hour {
					t.Errorf("attempt %d recorded at %s, the forged claim time", a.ID, a.AttemptedAt)
				}
			}
		}
	})
}

// rewrite sets one field inside a lease token, keeping whatever follows
// its payload.
func rewrite(t *testing.T, token, key string, v any) string {
	t.Helper()
	payload, mac, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m[key] = v
	raw, _ = json.Marshal(m)
	if mac != "" {
		mac = "." + mac
	}
	return base64.RawURLEncoding.EncodeToString(raw) + mac
}

// TestLeaseRunsOut checks that a delivery whose lease ran out is claimed
// again, and that the first holder's late ack is refused.
func TestLeaseRunsOut(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		b.sendStripe(t, "evt_lease", "invoice.paid")
		first := claimOne(t, b.api.URL, bobToken, "dev-bob")
		later := b.serve(t, b.cfg, func() time.Time { return time.Now().Add(61 * time.Second) }).URL
		second := claimOne(t, later, bobToken, "dev-bob")
		if second.ID != first.ID || second.Attempt != 2 {
			t.Errorf("after the lease: claimed %d attempt %d, want %d attempt 2", second.ID, second.Attempt, first.ID)
		}
		var e adminwire.Error
		if code := b.call(t, bobToken, "POST", ackPath(first.ID), adminwire.AckRequest{Outcome: "done", LeaseToken: first.LeaseToken}, &e); code != 409 {
			t.Errorf("ack under a lost lease: %d, want 409", code)
		}
		var res adminwire.AckResult
		if code := call(t, later, bobToken, "POST", ackPath(second.ID), adminwire.AckRequest{Outcome: "skipped", LeaseToken: second.LeaseToken}, &res); code != 200 || res.Status != "skipped" {
			t.Errorf("ack by the new holder: %d %+v", code, res)
		}
	})
}

// TestRelease checks that "released" hands a delivery back at once,
// without counting the attempt.
func TestRelease(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		b.sendStripe(t, "evt_release", "invoice.paid")
		first := claimOne(t, b.api.URL, bobToken, "dev-bob")
		var res adminwire.AckResult
		wantStatus(t, "release", b.call(t, bobToken, "POST", ackPath(first.ID), adminwire.AckRequest{Outcome: "released", LeaseToken: first.LeaseToken}, &res), 200)
		again := claimOne(t, b.api.URL, bobToken, "dev-bob")
		if again.ID != first.ID || again.Attempt != first.Attempt {
			t.Errorf("claimed %d attempt %d after release, want %d attempt %d", again.ID, again.Attempt, first.ID, first.Attempt)
		}
	})
}

// TestClaimWaits checks the long poll: a claim waiting on an empty queue
// returns as soon as an event arrives.
func TestClaimWaits(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		start := time.Now()
		var empty adminwire.Claimed
		wantStatus(t, "claim without wait", b.call(t, bobToken, "POST", "/api/v1/destinations/dev-bob/claim", nil, &empty), 200)
		if len(empty.Deliveries) != 0 || time.Since(start) > 2*time.Second {
			t.Fatalf("claim of an empty queue without wait: %+v after %s", empty, time.Since(start))
		}
		start = time.Now()
		wantStatus(t, "claim with a short wait", b.call(t, bobToken, "POST", "/api/v1/destinations/dev-bob/claim?wait=300ms", nil, &empty), 200)
		if took := time.Since(start); len(empty.Deliveries) != 0 || took < 300*time.Millisecond {
			t.Fatalf("claim with wait=300ms: %+v after %s", empty, took)
		}

		api, claims := b.serveCountingClaims(t)
		done := make(chan adminwire.Claimed, 1)
		start = time.Now()
		go func() {
			var c adminwire.Claimed
			defer func() { done <- c }()
			req, _ := http.NewRequest("POST", api.URL+"/api/v1/destinations/dev-bob/claim?wait=20s&max=100", nil)
			req.Header.Set("Authorization", "Bearer "+bobToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			_ = json.NewDecoder(resp.Body).Decode(&c)
		}()
		testkit.Eventually(t, 10*time.Second, "the long poll's first look at the queue", func() error {
			return testkit.Check(claims.returned.Load() > 0, "no claim has returned")
		})
		b.sendStripe(t, "evt_wait", "invoice.paid")
		select {
		case c := <-done:
			if len(c.Deliveries) != 1 {
				t.Errorf("long poll returned %d deliveries, want 1", len(c.Deliveries))
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("long poll returned after %s", took)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("long poll did not return after an event arrived")
		}

		for _, tc := range []struct {
			token, path string
			want        int
		}{
			{adminToken, "/api/v1/destinations/billing/claim", 400},
			{adminToken, "/api/v1/destinations/nope/claim", 404},
			{bobToken, "/api/v1/destinations/dev-bob/claim?max=0", 400},
			{bobToken, "/api/v1/destinations/dev-bob/claim?wait=-1s", 400},
			{bobToken, "/api/v1/destinations/dev-bob/claim?wait=soon", 400},
			{bobToken, "/api/v1/destinations/dev-bob/claim?lease=5s", 400},
			{bobToken, "/api/v1/destinations/dev-bob/claim?lease=1h", 400},
			{bobToken, "/api/v1/destinations/dev-bob/claim?lease=later", 400},
			{bobToken, "/api/v1/destinations/dev-bob/claim?stray=1", 400},
		} {
			var e adminwire.Error
			if got := b.call(t, tc.token, "POST", tc.path, nil, &e); got != tc.want {
				t.Errorf("%s: %d, want %d", tc.path, got, tc.want)
			}
		}
	})
}

// TestShutdownEndsClaimWaits checks that a server shutting down does not
// wait for a long poll to run its course.
func TestShutdownEndsClaimWaits(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		api, claims := b.serveCountingClaims(t)
		done := make(chan int, 1)
		go func() {
			req, _ := http.NewRequest("POST", api.URL+"/api/v1/destinations/dev-bob/claim?wait=60s", nil)
			req.Header.Set("Authorization", "Bearer "+bobToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- 0
				return
			}
			resp.Body.Close()
			done <- resp.StatusCode
		}()
		testkit.Eventually(t, 10*time.Second, "the long poll's first look at the queue", func() error {
			return testkit.Check(claims.returned.Load() > 0, "no claim has returned")
		})
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := api.Config.Shutdown(ctx); err != nil {
			t.Fatalf("shutdown: %v", err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("shutdown took %s with a claim waiting", took)
		}
		if code := <-done; code != 200 {
			t.Errorf("the waiting claim answered %d, want 200", code)
		}
	})
}

// TestClaimLease checks that a claim may ask for its own lease, and that
// the lease it gets is the one the store holds.
func TestClaimLease(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		id := b.send(t, webhook{source: "stripe", id: "evt_lease", typ: "invoice.paid", body: []byte(`{"id":"evt_lease","type":"invoice.paid"}`)})
		var c adminwire.Claimed
		before := time.Now()
		wantStatus(t, "claim", b.call(t, aliceToken, "POST", "/api/v1/destinations/dev-alice/claim?lease=30s", nil, &c), 200)
		if c.LeaseSeconds != 30 || len(c.Deliveries) != 1 {
			t.Fatalf("claim = %+v, want one delivery under a 30s lease", c)
		}
		ds, err := b.store.EventDeliveries(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.Destination != "dev-alice" {
				continue
			}
			if until := d.LeaseUntil.Sub(before); until < 29*time.Second || until > 40*time.Second {
				t.Errorf("lease_until is %s after the claim, want about 30s", until)
			}
		}
	})
}
