package adminapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestEveryRouteEveryRole calls every route with no token, an unknown
// token and each role's token, and checks who is let in.
func TestEveryRouteEveryRole(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		id := b.sendStripe(t, "evt_roles", "invoice.paid")

		// A lease held by alice and one held by bob, for the ack rows.
		var alice, bob adminwire.Claimed
		wantStatus(t, "alice claims", b.call(t, aliceToken, "POST", "/api/v1/destinations/dev-alice/claim", nil, &alice), 200)
		wantStatus(t, "bob claims", b.call(t, bobToken, "POST", "/api/v1/destinations/dev-bob/claim", nil, &bob), 200)
		if len(alice.Deliveries) != 1 || len(bob.Deliveries) != 1 {
			t.Fatalf("claims gave alice %d and bob %d deliveries, want 1 each", len(alice.Deliveries), len(bob.Deliveries))
		}
		ack := func(c adminwire.Claimed) (string, adminwire.AckRequest) {
			d := c.Deliveries[0]
			// "released" hands the delivery back, so that every role's
			// row leaves the lease usable by the next.
			return fmt.Sprintf("/api/v1/deliveries/%d/ack", d.ID), adminwire.AckRequest{Outcome: "released", LeaseToken: d.LeaseToken}
		}
		aliceAck, aliceBody := ack(alice)
		bobAck, bobBody := ack(bob)
		var ev adminwire.EventDetail
		wantStatus(t, "show", b.call(t, readToken, "GET", "/api/v1/events/"+id, nil, &ev), 200)
		var billing int64
		for _, d := range ev.Deliveries {
			if d.Destination == "billing" {
				billing = d.ID
			}
		}
		skip := fmt.Sprintf("/api/v1/deliveries/%d/skip", billing)
		var job adminwire.Job
		wantStatus(t, "start a job", b.call(t, adminToken, "POST", "/api/v1/jobs/replay", map[string]any{"ids": []string{id}}, &job), 202)
		jobPath := "/api/v1/jobs/" + job.ID

		type route struct {
			method, path string
			body         any
			// want is the status for the admin, read, alice and bob tokens.
			admin, read, alice, bob int
		}
		routes := []route{
			{"GET", "/api/v1/events", nil, 200, 200, 403, 403},
			{"GET", "/api/v1/events/" + id, nil, 200, 200, 403, 403},
			{"GET", "/api/v1/events/" + id + "/raw", nil, 200, 200, 403, 403},
			{"POST", "/api/v1/events/" + id + "/verify", nil, 200, 200, 403, 403},
			{"POST", "/api/v1/replay", map[string]any{"ids": []string{id}, "dry_run": true}, 200, 403, 403, 403},
			{"POST", "/api/v1/purge", map[string]any{"ids": []string{id}, "reason": "roles", "dry_run": true}, 200, 403, 403, 403},
			{"POST", "/api/v1/backfill", map[string]any{"destination": "billing", "since": "2020-01-01T00:00:00Z", "until": "2030-01-01T00:00:00Z", "dry_run": true}, 200, 403, 403, 403},
			{"POST", "/api/v1/jobs/replay", map[string]any{"ids": []string{id}, "destination": "billing"}, 202, 403, 403, 403},
			{"POST", "/api/v1/jobs/backfill", map[string]any{"destination": "billing", "since": "2020-01-01T00:00:00Z", "until": "2030-01-01T00:00:00Z"}, 202, 403, 403, 403},
			{"GET", "/api/v1/jobs", nil, 200, 200, 403, 403},
			{"GET", jobPath, nil, 200, 200, 403, 403},
			{"POST", jobPath + "/cancel", nil, 200, 403, 403, 403},
			{"GET", "/api/v1/jobs/job_nope", nil, 404, 404, 403, 403},
			{"POST", "/api/v1/destinations/dev-alice/claim", nil, 200, 403, 200, 403},
			{"POST", "/api/v1/destinations/dev-bob/claim", nil, 200, 403, 403, 200},
			{"POST", "/api/v1/destinations/no-such/claim", nil, 404, 403, 403, 403},
			{"POST", aliceAck, aliceBody, 200, 403, 200, 403},
			{"POST", bobAck, bobBody, 200, 403, 403, 200},
			{"GET", "/api/v1/stats", nil, 200, 200, 403, 403},
			{"GET", "/api/v1/secrets", nil, 200, 200, 403, 403},
			{"POST", "/api/v1/reload", nil, 501, 403, 403, 403},
			{"GET", "/api/v1/rejections?source=stripe&since=2020-01-01T00:00:00Z", nil, 200, 200, 403, 403},
			{"GET", "/api/v1/audit?since=2020-01-01T00:00:00Z&limit=5", nil, 200, 200, 403, 403},
			{"GET", "/api/v1/destinations", nil, 200, 200, 403, 403},
			{"GET", "/api/v1/failures", nil, 200, 200, 403, 403},
			{"POST", "/api/v1/destinations/billing/pause", nil, 200, 403, 403, 403},
			{"POST", "/api/v1/destinations/billing/resume", nil, 200, 403, 403, 403},
			{"POST", "/api/v1/destinations/no-such/pause", nil, 404, 403, 403, 403},
			{"POST", skip, nil, 200, 403, 403, 403},
			{"POST", "/api/v1/deliveries/999999/skip", nil, 404, 403, 403, 403},
		}
		tokens := []struct{ name, secret string }{{"admin", adminToken}, {"read", readToken}, {"alice", aliceToken}, {"bob", bobToken}}
		for _, r := range routes {
			what := r.method + " " + r.path
			wantStatus(t, what+" without a token", b.call(t, "", r.method, r.path, r.body, nil), 401)
			wantStatus(t, what+" with an unknown token", b.call(t, "not-a-token", r.method, r.path, r.body, nil), 401)
			wantStatus(t, what+" with a token's prefix", b.call(t, adminToken[:10], r.method, r.path, r.body, nil), 401)
			// Read and refused calls first, so that the admin's ack
			// still finds the lease.
			for i := len(tokens) - 1; i >= 0; i-- {
				want := []int{r.admin, r.read, r.alice, r.bob}[i]
				got := b.call(t, tokens[i].secret, r.method, r.path, r.body, nil)
				if got != want {
					t.Errorf("%s with the %s token: %d, want %d", what, tokens[i].name, got, want)
				}
			}
		}
		// A route that does not exist tells nothing without a token.
		wantStatus(t, "unknown route without a token", b.call(t, "", "GET", "/api/v1/nothing", nil, nil), 401)
	})
}

// TestBearerScheme checks the forms of the Authorization header accepted.
func TestBearerScheme(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		for _, tc := range []struct {
			header string
			want   int
		}{
			{"Bearer " + readToken, 200},
			{"bearer " + readToken, 200},
			{"Basic " + readToken, 401},
			{readToken, 401},
			{"Bearer", 401},
			{"Bearer " + readToken + "x", 401},
		} {
			req, _ := http.NewRequest("GET", b.api.URL+"/api/v1/stats", nil)
			req.Header.Set("Authorization", tc.header)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("Authorization %q: %d, want %d", tc.header, resp.StatusCode, tc.want)
			}
			if tc.want == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("Authorization %q: 401 without a Bearer challenge", tc.header)
			}
		}
	})
}

// TestAuditLog checks that mutating calls are logged with the token's name
// and never its secret, refused ones included.
func TestAuditLog(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		id := b.sendStripe(t, "evt_audit", "invoice.paid")
		wantStatus(t, "replay", b.call(t, adminToken, "POST", "/api/v1/replay", map[string]any{"ids": []string{id}}, nil), 200)
		wantStatus(t, "replay by read", b.call(t, readToken, "POST", "/api/v1/replay", map[string]any{"ids": []string{id}}, nil), 403)
		wantStatus(t, "list", b.call(t, adminToken, "GET", "/api/v1/events", nil, nil), 200)
		logs := b.logs.String()
		for _, want := range []string{`"token":"ops","role":"admin","method":"POST","path":"/api/v1/replay","status":200`,
			`"token":"dashboard","role":"read","method":"POST","path":"/api/v1/replay","status":403`,
			`"msg":"audit"`, `"rearmed":3`} {
			if !strings.Contains(logs, want) {
				t.Errorf("logs lack %s:\n%s", want, logs)
			}
		}
		for _, secret := range testEnv {
			if strings.Contains(logs, secret) {
				t.Errorf("logs carry the secret %q", secret)
			}
		}
		if strings.Contains(logs, `"path":"/api/v1/events"`) {
			t.Errorf("a read was audited:\n%s", logs)
		}
	})
}
