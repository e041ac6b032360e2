package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Tokens of the admin security test.
const (
	secAdmin = "sec-admin-token-1f0e"
	secRead  = "sec-read-token-6a2c"
	secAlice = "sec-alice-token-93d7" // consumer of alice
	secBob   = "sec-bob-token-4c81"   // consumer of bob
)

const secConfig = `tokens:
  - {name: ops, role: admin, secret: "sec-admin-token-1f0e"}
  - {name: viewer, role: read, secret: "sec-read-token-6a2c"}
  - {name: alice, role: consumer, secret: "sec-alice-token-93d7", destinations: [alice]}
  - {name: bob, role: consumer, secret: "sec-bob-token-4c81", destinations: [bob]}
` + stripeSource + `destinations:
  - {name: alice, pull: true, secret: "whsec_c2VjLWFsaWNlLXNpZ25pbmc=", sources: [stripe]}
  - {name: bob, pull: true, secret: "whsec_c2VjLWJvYi1zaWduaW5n", sources: [stripe]}
`

// adminRoute is one route of the admin API, as registered in
// internal/adminapi, with a path and body that reach its handler.
type adminRoute struct {
	method, path, body string
	// allowed lists the tokens whose role may call it; a consumer's own
	// claim and ack are checked separately.
	allowed []string
}

// TestHostileAdminAccess calls every admin route without a token, with
// unknown or mangled ones, and with every token whose role may not call
// it: 401 for the first, 403 for the others, and nothing of the data in
// either answer. Each token the role allows gets through, so the refusals
// are the guard's, not a broken route's. The public listener answers none
// of the admin paths, nor /metrics, /healthz or /readyz.
func TestHostileAdminAccess(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			p := startRelay(t, driver.URL(t), secConfig, stripeEnv)
			body := stripeEvent("evt_sec_1", `"secret_field":"DATA-MARKER-51aa"`)
			if status, _, answer, err := hostileDo(http.DefaultClient, hostileStripe(t, p, body, nil)); err != nil || status != 200 {
				t.Fatalf("post: %d %s %v", status, answer, err)
			}
			var list adminwire.EventList
			if status, answer := hostileAdmin(t, p, secAdmin, "GET", "/api/v1/events", ""); status != 200 || json.Unmarshal(answer, &list) != nil || len(list.Events) != 1 {
				t.Fatalf("list: %d %s", status, answer)
			}
			id := list.Events[0].ID
			aliceLease, aliceDelivery := secClaim(t, p, secAlice, "alice")
			bobLease, bobDelivery := secClaim(t, p, secBob, "bob")
			window := fmt.Sprintf(`{"destination":"alice","since":%q,"until":%q,"dry_run":true}`,
				time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
			ack := func(lease string) string { return fmt.Sprintf(`{"outcome":"released","lease_token":%q}`, lease) }

			readers := []string{secAdmin, secRead}
			routes := []adminRoute{
				{"GET", "/api/v1/events", "", readers},
				{"GET", "/api/v1/events/" + id, "", readers},
				{"GET", "/api/v1/events/" + id + "/raw", "", readers},
				{"POST", "/api/v1/events/" + id + "/verify", "", readers},
				{"GET", "/api/v1/stats", "", readers},
				{"POST", "/api/v1/replay", fmt.Sprintf(`{"ids":[%q],"dry_run":true}`, id), []string{secAdmin}},
				{"POST", "/api/v1/backfill", window, []string{secAdmin}},
				{"POST", "/api/v1/destinations/alice/claim", "", []string{secAdmin, secAlice}},
				{"POST", "/api/v1/destinations/bob/claim", "", []string{secAdmin, secBob}},
				{"POST", fmt.Sprintf("/api/v1/deliveries/%d/ack", aliceDelivery), ack(aliceLease), []string{secAdmin, secAlice}},
				{"POST", fmt.Sprintf("/api/v1/deliveries/%d/ack", bobDelivery), ack(bobLease), []string{secAdmin, secBob}},
			}
			unauthenticated := []struct{ name, header string }{
				{"no header", ""},
				{"unknown token", "Bearer not-a-token"},
				{"empty bearer", "Bearer "},
				{"token with a suffix", "Bearer " + secAdmin + "x"},
				{"token prefix", "Bearer " + secAdmin[:len(secAdmin)-1]},
				{"other scheme", "Basic " + secAdmin},
				{"no scheme", secAdmin},
			}
			tokens := map[string]string{secAdmin: "admin", secRead: "read", secAlice: "alice", secBob: "bob"}
			refused401, refused403, allowed := 0, 0, 0
			for _, r := range routes {
				for _, u := range unauthenticated {
					status, h, answer := secCall(t, p.admin, r.method, r.path, u.header, r.body)
					if status != 401 || h.Get("WWW-Authenticate") == "" || secLeaks(answer) {
						t.Errorf("%s %s with %s: %d %s, want 401 with WWW-Authenticate and no data", r.method, r.path, u.name, status, answer)
					}
					refused401++
				}
				// The token in the query string authenticates nothing.
				if status, _, _ := secCall(t, p.admin, r.method, r.path+"?token="+secAdmin, "", r.body); status != 401 {
					t.Errorf("%s %s with the token in the query: %d, want 401", r.method, r.path, status)
				}
				for token, name := range tokens {
					status, _, answer := secCall(t, p.admin, r.method, r.path, "Bearer "+token, r.body)
					switch ok := slices.Contains(r.allowed, token); {
					case ok && (status == 401 || status == 403):
						t.Errorf("%s %s as %s: %d %s, want it allowed", r.method, r.path, name, status, answer)
					case ok:
						allowed++
					case status != 403 || secLeaks(answer):
						t.Errorf("%s %s as %s: %d %s, want 403 and no data", r.method, r.path, name, status, answer)
					default:
						refused403++
					}
				}
			}
			// An unknown route tells nothing without a token.
			for _, path := range []string{"/api/v1/nope", "/api/v2/events", "/api/v1/events/" + id + "/delete"} {
				if status, _, _ := secCall(t, p.admin, "DELETE", path, "", ""); status != 401 {
					t.Errorf("DELETE %s without a token: %d, want 401", path, status)
				}
			}

			publicPaths := []string{"/healthz", "/readyz", "/metrics", "/api/", "/api/v1/", "/console", "/"}
			for _, r := range routes {
				publicPaths = append(publicPaths, r.path)
			}
			publicRefused := 0
			for _, path := range publicPaths {
				for _, method := range []string{"GET", "POST"} {
					status, _, answer := secCall(t, p.public, method, path, "Bearer "+secAdmin, "{}")
					if status != 404 || secLeaks(answer) || strings.Contains(string(answer), "go_goroutines") {
						t.Errorf("public %s %s: %d %.80s, want 404", method, path, status, answer)
					}
					publicRefused++
				}
			}
			// Paths that would reach the admin API once cleaned are never
			// answered with its data.
			for _, path := range []string{"/webhooks/../api/v1/stats", "/webhooks/%2e%2e/api/v1/stats", "//api/v1/stats", "/api/v1/./stats"} {
				status, _, answer := secCall(t, p.public, "GET", path, "Bearer "+secAdmin, "")
				if status == 200 || secLeaks(answer) || strings.Contains(string(answer), "destinations") {
					t.Errorf("public GET %s: %d %.80s", path, status, answer)
				}
				publicRefused++
			}
			t.Logf("RELIABILITY admin-access driver=%s routes=%d refused_401=%d refused_403=%d allowed=%d public_refused=%d",
				driver.Name, len(routes), refused401, refused403, allowed, publicRefused)
		})
	}
}

// secClaim claims the one delivery of a pull destination and returns its
// lease and id.
func secClaim(t *testing.T, p *relayProc, token, destination string) (string, int64) {
	t.Helper()
	status, answer := hostileAdmin(t, p, token, "POST", "/api/v1/destinations/"+destination+"/claim?wait=5s", "")
	var c adminwire.Claimed
	if status != 200 || json.Unmarshal(answer, &c) != nil || len(c.Deliveries) != 1 {
		t.Fatalf("claim %s: %d %s", destination, status, answer)
	}
	return c.Deliveries[0].LeaseToken, c.Deliveries[0].ID
}

// secCall makes one request to addr with an Authorization header (none
// when empty), following no redirect.
func secCall(t *testing.T, addr, method, path, auth, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(path, "%2e") || strings.Contains(path, "/../") || strings.Contains(path, "/./") || strings.HasPrefix(path, "//") {
		req.URL.Opaque = path // send the path as written, uncleaned
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, answer
}

// secLeaks reports whether an answer holds any of the stored data.
func secLeaks(answer []byte) bool {
	s := string(answer)
	return strings.Contains(s, "DATA-MARKER") || strings.Contains(s, "evt_sec_1") || strings.Contains(s, "body_base64")
}
