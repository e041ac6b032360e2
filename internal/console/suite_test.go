package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/console/link"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestConsole runs the console's suite on each driver.
func TestConsole(t *testing.T) {
	t.Parallel()
	for _, d := range testdb.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range suite {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					tc.run(t, setup(t, d))
				})
			}
		})
	}
}

// mutatingButton finds a button whose text starts with a mutating verb.
var mutatingButton = regexp.MustCompile(`<button[^>]*>\s*(Replay|Backfill|Confirm)`)

// suite is the console's behaviour, one case per promise.
var suite = []struct {
	name string
	run  func(t *testing.T, b *bundle)
}{
	{"login page and security headers", func(t *testing.T, b *bundle) {
		resp, err := http.Get(b.srv.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		status, page := readAll(t, resp)
		wantPage(t, "GET /", status, page, http.StatusOK, `type="password"`, `name="token"`, "Log in")
		for k, want := range map[string]string{
			"X-Frame-Options": "DENY",
			"Referrer-Policy": "same-origin",
		} {
			if got := resp.Header.Get(k); got != want {
				t.Errorf("%s: %q, want %q", k, got, want)
			}
		}
		csp := resp.Header.Get("Content-Security-Policy")
		for _, part := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
			if !strings.Contains(csp, part) {
				t.Errorf("Content-Security-Policy %q lacks %q", csp, part)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(page, "<script>") || strings.Contains(page, " style=") {
			t.Errorf("inline script or style: CSP %q", csp)
		}
	}},
	{"the overview shows nodes that run different configurations", func(t *testing.T, b *bundle) {
		c := b.login(t, adminToken)
		now := time.Now()
		record := func(id, fp string) {
			if err := b.store.RecordNode(context.Background(), store.Node{ID: id, Version: "v1", ConfigFingerprint: fp, StartedAt: now, SeenAt: now}); err != nil {
				t.Fatal(err)
			}
		}
		record("node-a", "aaaa0000aaaa0000")
		record("node-b", "aaaa0000aaaa0000")
		status, page := c.get("/")
		wantPage(t, "overview of one configuration", status, page, http.StatusOK)
		if strings.Contains(page, `id="config-drift"`) {
			t.Error("the overview warns of drift while every node runs one configuration")
		}
		record("node-c", "bbbb1111bbbb1111")
		status, page = c.get("/")
		wantPage(t, "overview of two configurations", status, page, http.StatusOK,
			`id="config-drift"`, "<code>aaaa0000aaaa0000</code>: node-a, node-b", "<code>bbbb1111bbbb1111</code>: node-c")
	}},
	{"login refuses unknown and consumer tokens", func(t *testing.T, b *bundle) {
		c := b.anonymous(t)
		status, page := c.submitLogin("not-a-token")
		wantPage(t, "unknown token", status, page, http.StatusUnauthorized, "not one of the relay")
		status, page = c.submitLogin(consumerToken)
		wantPage(t, "consumer token", status, page, http.StatusForbidden, "consumer token cannot open the console")
		if status, _ := c.get("/events"); status != http.StatusOK || c.hasSession(t) {
			t.Fatalf("a refused log in opened a session")
		}
		status, page = c.postRaw("/login", url.Values{"token": {adminToken}, "csrf": {"forged"}}, nil)
		wantPage(t, "login without the form's CSRF token", status, page, http.StatusForbidden)
	}},
	{"one token's logins cannot evict another token's session", func(t *testing.T, b *bundle) {
		admin := b.login(t, adminToken)
		// A read token logs in more often than the 64 sessions a token
		// keeps, each time from a fresh browser: only its own oldest
		// sessions make room.
		first := b.loginCookie(t, readToken)
		for range 100 {
			b.loginCookie(t, readToken)
		}
		if status, page := admin.get("/events"); status != http.StatusOK || !strings.Contains(page, "Log out") {
			t.Fatalf("the admin's session was evicted by another token's logins: %d", status)
		}
		reader := b.anonymous(t)
		reader.http.Jar.SetCookies(mustURL(t, b.srv.URL), []*http.Cookie{first})
		if status, page := reader.get("/events"); status != http.StatusOK || strings.Contains(page, "Log out") {
			t.Errorf("the read token's first session outlived 100 newer ones of the same token: %d", status)
		}
	}},
	{"session cookie", func(t *testing.T, b *bundle) {
		c := b.anonymous(t)
		_, page := c.get("/")
		form := url.Values{"csrf": {csrfOf(t, page)}, "token": {readToken}}
		req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for _, ck := range c.http.Jar.Cookies(req.URL) {
			req.AddCookie(ck)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var session *http.Cookie
		for _, ck := range resp.Cookies() {
			if ck.Name == "hookrelay_session" {
				session = ck
			}
		}
		if resp.StatusCode != http.StatusSeeOther || session == nil {
			t.Fatalf("log in: status %d, cookies %v", resp.StatusCode, resp.Cookies())
		}
		if !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.MaxAge <= 0 || session.Expires.IsZero() {
			t.Errorf("session cookie %+v: want HttpOnly, SameSite=Strict and an expiry", session)
		}
		if session.Secure {
			t.Errorf("session cookie is Secure over plain HTTP: a browser would never send it back")
		}
		if strings.Contains(session.Value, readToken) {
			t.Errorf("the session cookie carries the token")
		}
	}},
	{"every page for every role", func(t *testing.T, b *bundle) {
		id := b.ingest(t, seed{source: "stripe", id: "evt_pages", typ: "invoice.paid"})
		if err := b.store.RecordRejections(context.Background(), []store.Rejection{{
			At: time.Now(), Source: "stripe", Reason: "signature mismatch", RemoteAddr: "203.0.113.7", BodySize: 321,
		}}); err != nil {
			t.Fatal(err)
		}
		pages := map[string][]string{
			"/":             {"Overview", "billing", "stripe"},
			"/events":       {"evt_pages", "invoice.paid", "billing: pending"},
			"/events/" + id: {"evt_pages", "Deliveries", "Re-verify", "Stripe-Signature"},
			"/replay":       {"Replay a set", `name="status"`},
			"/destinations": {"billing", "http://127.0.0.1:9/hooks", "Backlog", "Dead"},
			"/rejections":   {"signature mismatch", "203.0.113.7"},
			"/failures":     {"Failures", "No delivery is failing or dead"},
			"/events?source=stripe&type=invoice.*&status=pending&destination=billing": {"evt_pages"},
		}
		for _, tok := range []string{readToken, adminToken} {
			c := b.login(t, tok)
			for path, texts := range pages {
				status, page := c.get(path)
				wantPage(t, path, status, page, http.StatusOK, texts...)
				hasButton := mutatingButton.MatchString(page)
				if tok == readToken && hasButton {
					t.Errorf("%s: a read session sees a mutating button", path)
				}
				if tok == adminToken && !hasButton && (path == "/events/"+id || path == "/replay" || path == "/destinations") {
					t.Errorf("%s: an admin session sees no replay or backfill button", path)
				}
			}
			status, body := c.get("/events/" + id + "/raw")
			if status != http.StatusOK || !strings.Contains(body, `"id":"evt_pages"`) {
				t.Errorf("raw: %d %q", status, body)
			}
			if status, page := c.get("/no/such/page"); status != http.StatusNotFound {
				t.Errorf("unknown page: %d\n%s", status, page)
			}
			if status, page := c.get("/events/0NOSUCHEVENT"); status != http.StatusNotFound {
				t.Errorf("unknown event: %d\n%s", status, page)
			}
		}
	}},
	{"the pages alerts link to", func(t *testing.T, b *bundle) {
		id := b.ingest(t, seed{source: "stripe", id: "evt_linked", typ: "invoice.paid"})
		if err := b.store.RecordRejections(context.Background(), []store.Rejection{
			{At: time.Now(), Source: "stripe", Reason: "signature_mismatch", RemoteAddr: "203.0.113.7", BodySize: 321},
			{At: time.Now(), Source: "github", Reason: "signature_missing", RemoteAddr: "198.51.100.9", BodySize: 123},
		}); err != nil {
			t.Fatal(err)
		}
		c := b.login(t, readToken)
		event := link.Event(b.srv.URL, id, "billing")
		status, page := c.get(strings.TrimPrefix(event, b.srv.URL))
		wantPage(t, event, status, page, http.StatusOK, "evt_linked", `id="delivery-billing"`)

		rejections := link.Rejections(b.srv.URL, "stripe")
		status, page = c.get(strings.TrimPrefix(rejections, b.srv.URL))
		wantPage(t, rejections, status, page, http.StatusOK, "203.0.113.7", `id="rejections-source"`, "Show every source")
		if strings.Contains(page, "198.51.100.9") {
			t.Errorf("%s lists another source's rejection", rejections)
		}
		status, page = c.get("/rejections")
		wantPage(t, "/rejections", status, page, http.StatusOK, "203.0.113.7", "198.51.100.9", `href="/rejections?source=github"`)
	}},
	{"no session goes to the login page", func(t *testing.T, b *bundle) {
		c := b.anonymous(t)
		for _, path := range []string{"/events", "/replay", "/destinations", "/rejections", "/failures"} {
			status, page := c.get(path)
			wantPage(t, path, status, page, http.StatusOK, `name="token"`)
		}
		status, page := c.postRaw("/replay", url.Values{"source": {"stripe"}}, nil)
		wantPage(t, "POST without a session", status, page, http.StatusForbidden)
	}},
	{"read session is refused every mutating route", func(t *testing.T, b *bundle) {
		id := b.ingest(t, seed{source: "stripe", id: "evt_read", typ: "invoice.paid"})
		c := b.login(t, readToken)
		routes := []struct {
			path string
			form url.Values
		}{
			{"/events/" + id + "/replay", url.Values{}},
			{"/events/" + id + "/replay", url.Values{"confirm": {"1"}}},
			{"/events/" + id + "/replay", url.Values{"confirm": {"1"}, "destination": {"billing"}}},
			{"/replay", url.Values{"source": {"stripe"}}},
			{"/replay", url.Values{"source": {"stripe"}, "confirm": {"1"}}},
			{"/destinations/late/backfill", url.Values{"since": {"2020-01-01T00:00:00Z"}, "until": {"2100-01-01T00:00:00Z"}}},
			{"/destinations/late/backfill", url.Values{"since": {"2020-01-01T00:00:00Z"}, "until": {"2100-01-01T00:00:00Z"}, "confirm": {"1"}}},
		}
		for _, r := range routes {
			status, page := c.post(r.path, r.form)
			wantPage(t, "read POST "+r.path, status, page, http.StatusForbidden, "read-only")
		}
		b.wantReplayCounts(t, id, 0)
		if n := b.auditLines("dashboard", "/replay", http.StatusForbidden); n != 2 {
			t.Errorf("%d audit lines of the refused replays of a set, want 2", n)
		}
	}},
	{"CSRF and cross-site refusal", func(t *testing.T, b *bundle) {
		id := b.ingest(t, seed{source: "stripe", id: "evt_csrf", typ: "invoice.paid"})
		c := b.login(t, adminToken)
		path := "/events/" + id + "/replay"
		status, page := c.postRaw(path, url.Values{"confirm": {"1"}}, nil)
		wantPage(t, "no CSRF token", status, page, http.StatusForbidden, "refused")
		status, page = c.postRaw(path, url.Values{"confirm": {"1"}, "csrf": {"wrong"}}, nil)
		wantPage(t, "wrong CSRF token", status, page, http.StatusForbidden, "refused")
		status, page = c.postRaw(path, url.Values{"confirm": {"1"}, "csrf": {c.csrf}}, http.Header{"Origin": {"https://evil.example"}})
		wantPage(t, "cross-site Origin", status, page, http.StatusForbidden, "refused")
		status, page = c.postRaw(path, url.Values{"confirm": {"1"}, "csrf": {c.csrf}}, http.Header{"Sec-Fetch-Site": {"cross-site"}})
		wantPage(t, "cross-site fetch", status, page, http.StatusForbidden, "refused")
		b.wantReplayCounts(t, id, 0)
		other := b.login(t, adminToken)
		status, page = other.postRaw(path, url.Values{"confirm": {"1"}, "csrf": {c.csrf}}, nil)
		wantPage(t, "another session's CSRF token", status, page, http.StatusForbidden, "refused")
		b.wantReplayCounts(t, id, 0)
	}},
	{"payloads are escaped", func(t *testing.T, b *bundle) {
		body := []byte(`{"id":"evt_<b>x</b>","type":"invoice.<img src=x onerror=alert(1)>","note":"<script>alert(1)</script>"}`)
		id := b.ingest(t, seed{source: "stripe", id: "evt_<b>x</b>", typ: "invoice.<img src=x onerror=alert(1)>", body: body})
		c := b.login(t, adminToken)
		for _, path := range []string{"/events", "/events/" + id, "/events?q=" + url.QueryEscape("evt_<b>x</b>")} {
			status, page := c.get(path)
			wantPage(t, path, status, page, http.StatusOK, "&lt;script&gt;alert(1)&lt;/script&gt;"[:0]+"&lt;")
			for _, raw := range []string{"<script>alert", "<img src=x", "<b>x</b>"} {
				if strings.Contains(page, raw) {
					t.Errorf("%s: the page holds %q unescaped", path, raw)
				}
			}
		}
		_, page := c.get("/events/" + id)
		if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("the event page does not show the body's script as text")
		}
	}},
	{"find by provider id", func(t *testing.T, b *bundle) {
		b.ingest(t, seed{source: "stripe", id: "evt_wanted", typ: "invoice.paid"})
		b.ingest(t, seed{source: "stripe", id: "evt_other", typ: "invoice.paid"})
		c := b.login(t, readToken)
		status, page := c.get("/events?q=evt_wanted")
		wantPage(t, "q", status, page, http.StatusOK, "evt_wanted")
		if strings.Contains(page, "evt_other") {
			t.Errorf("q=evt_wanted lists evt_other")
		}
		status, page = c.get("/events?status=bogus")
		wantPage(t, "bad status", status, page, http.StatusBadRequest, "status: want one of")
	}},
	{"a purged event shows its tombstone and nothing to replay", func(t *testing.T, b *bundle) {
		id := b.ingest(t, seed{source: "stripe", id: "evt_purged", typ: "invoice.paid",
			body: []byte(`{"id":"evt_purged","type":"invoice.paid","data":{"object":{"customer":"cus_secret_42"}}}`)})
		_, err := b.store.PurgeEvents(context.Background(), store.PurgeRequest{IDs: []string{id}, Actor: "ops", Reason: "erasure request 7", Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		c := b.login(t, adminToken)
		status, page := c.get("/events/" + id)
		wantPage(t, "event", status, page, http.StatusOK, "evt_purged", "Purged", "erasure request 7", "purged</span>")
		for _, gone := range []string{"cus_secret_42", "Replay to", "Re-verify", "Download exact bytes"} {
			if strings.Contains(page, gone) {
				t.Errorf("the purged event's page shows %q", gone)
			}
		}
		status, _ = c.get("/events/" + id + "/raw")
		if status != http.StatusGone {
			t.Errorf("raw bytes of a purged event: %d, want 410", status)
		}
		status, page = c.get("/destinations")
		wantPage(t, "destinations", status, page, http.StatusOK, "Done · skipped · purged", "0 · 0 · 1")
	}},
	{"replay one event with confirmation", func(t *testing.T, b *bundle) {
		id := b.ingest(t, seed{source: "stripe", id: "evt_replay", typ: "invoice.paid"})
		c := b.login(t, adminToken)
		status, page := c.post("/events/"+id+"/replay", url.Values{"destination": {"billing"}})
		wantPage(t, "dry run", status, page, http.StatusOK, "1 delivery match: 1 would be re-armed", "Replay to billing")
		b.wantReplayCounts(t, id, 0)
		if _, page := c.get("/events/" + id); strings.Contains(page, "re-armed") {
			t.Errorf("a GET shows a result before any confirmation")
		}
		status, page = c.post("/events/"+id+"/replay", url.Values{"destination": {"billing"}, "confirm": {"1"}})
		wantPage(t, "confirmed", status, page, http.StatusOK, "Replayed to billing: 1 delivery re-armed", "evt_replay")
		b.wantReplayCounts(t, id, 1, "billing")
		status, page = c.post("/events/"+id+"/replay", url.Values{"confirm": {"1"}})
		wantPage(t, "to all", status, page, http.StatusOK, "2 deliveries re-armed")
		if n := b.auditLines("ops", "/events/"+id+"/replay", http.StatusSeeOther); n != 2 {
			t.Errorf("%d audit lines of the confirmed replays with the token's name, want 2", n)
		}
	}},
	{"a replay's confirmation warns that handlers run again", func(t *testing.T, b *bundle) {
		// orders is a handler destination an application registered:
		// replaying its deliveries applies their effects again.
		ctx := context.Background()
		if _, err := b.store.RegisterHandlers(ctx, []store.HandlerDestination{{Name: "orders", Sources: []string{"stripe"}}}, time.Now()); err != nil {
			t.Fatal(err)
		}
		id := b.ingest(t, seed{source: "stripe", id: "evt_handled", typ: "invoice.paid", destinations: []string{"billing", "orders"}})
		b.ingest(t, seed{source: "stripe", id: "evt_pushed", typ: "invoice.paid", destinations: []string{"billing"}})
		c := b.login(t, adminToken)
		const warning = `<p class="warning" id="handler-warning">`
		status, page := c.post("/events/"+id+"/replay", nil)
		wantPage(t, "the event's dry run", status, page, http.StatusOK, "2 deliveries match", warning+
			"1 of the 2 deliveries to re-arm is a handler delivery (orders): its handler runs again and its effects apply again.</p>")
		status, page = c.post("/replay", url.Values{"source": {"stripe"}})
		wantPage(t, "the set's dry run", status, page, http.StatusOK, "3 deliveries match", warning+
			"1 of the 3 deliveries to re-arm is a handler delivery (orders): its handler runs again and its effects apply again.</p>")
		for _, form := range []url.Values{{"destination": {"billing"}}, {"destination": {"billing"}, "source": {"stripe"}}} {
			path := "/events/" + id + "/replay"
			if form.Has("source") {
				path = "/replay"
			}
			status, page = c.post(path, form)
			wantPage(t, path+" to billing", status, page, http.StatusOK, "would be re-armed")
			if strings.Contains(page, "handler-warning") || strings.Contains(page, "handler delivery") {
				t.Errorf("%s %v: a replay of push deliveries alone warns of handlers:\n%s", path, form, page)
			}
		}
		b.wantReplayCounts(t, id, 0)
	}},
	{"an attempt timeline keeps replay rounds apart", func(t *testing.T, b *bundle) {
		id := b.ingest(t, seed{source: "stripe", id: "evt_rounds", typ: "invoice.paid"})
		attempt := func(code int) {
			t.Helper()
			ctx := context.Background()
			now := time.Now()
			claims, err := b.store.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: 1, Lease: time.Minute, Now: now})
			if err != nil || len(claims) != 1 {
				t.Fatalf("claim: %d claims, %v", len(claims), err)
			}
			c := claims[0]
			if err := b.store.CompleteDelivery(ctx, store.Completion{
				DeliveryID: c.Delivery.ID, LeaseToken: c.LeaseToken, Status: store.StatusDone, Now: now,
				Attempt: store.Attempt{AttemptedAt: now, Duration: time.Millisecond, StatusCode: code},
			}); err != nil {
				t.Fatal(err)
			}
		}
		c := b.login(t, adminToken)
		attempt(http.StatusAccepted)
		if _, page := c.get("/events/" + id); strings.Contains(page, "First run") {
			t.Errorf("a delivery never replayed shows round headings")
		}
		c.post("/events/"+id+"/replay", url.Values{"destination": {"billing"}, "confirm": {"1"}})
		attempt(http.StatusNoContent)
		status, page := c.get("/events/" + id)
		wantPage(t, "event after a replay", status, page, http.StatusOK, "First run", "Replay 1", "HTTP 202", "HTTP 204")
		if strings.Index(page, "First run") > strings.Index(page, "HTTP 202") || strings.Index(page, "Replay 1") > strings.Index(page, "HTTP 204") ||
			strings.Index(page, "HTTP 202") > strings.Index(page, "Replay 1") {
			t.Errorf("rounds and attempts out of order")
		}
	}},
	{"pause and resume a destination", func(t *testing.T, b *bundle) {
		reader := b.login(t, readToken)
		if _, page := reader.get("/destinations"); strings.Contains(page, `action="/destinations/billing/pause"`) {
			t.Errorf("a read session is offered the pause button")
		}
		if status, _ := reader.post("/destinations/billing/pause", url.Values{}); status != http.StatusForbidden {
			t.Errorf("a read session's pause: %d, want 403", status)
		}
		admin := b.login(t, adminToken)
		status, page := admin.post("/destinations/billing/pause", url.Values{})
		wantPage(t, "pause", status, page, http.StatusOK, "billing is paused", "Resume billing", "s-paused")
		paused, err := b.store.Paused(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := paused["billing"]; !ok {
			t.Fatalf("the console's pause did not pause billing in the store")
		}
		status, page = admin.post("/destinations/billing/resume", url.Values{})
		wantPage(t, "resume", status, page, http.StatusOK, "billing is resumed", "Pause billing")
		if status, page := admin.post("/destinations/nowhere/pause", url.Values{}); status != http.StatusNotFound {
			t.Errorf("pause of an unknown destination: %d, want 404:\n%s", status, page)
		}
		if n := b.auditLines("ops", "/destinations/billing/pause", http.StatusSeeOther); n != 1 {
			t.Errorf("%d audit lines of the pause with the token's name, want 1", n)
		}
	}},
	{"skip a delivery, after a confirmation", func(t *testing.T, b *bundle) {
		id := b.ingest(t, seed{source: "stripe", id: "evt_skip", typ: "invoice.paid", destinations: []string{"billing"}})
		delivery := strconv.FormatInt(b.onlyDelivery(t, id).ID, 10)
		reader := b.login(t, readToken)
		if _, page := reader.get("/events/" + id); strings.Contains(page, "/skip") {
			t.Errorf("a read session is offered to skip")
		}
		admin := b.login(t, adminToken)
		if _, page := admin.get("/events/" + id); !strings.Contains(page, `action="/deliveries/`+delivery+`/skip"`) {
			t.Fatalf("a pending delivery offers no skip")
		}
		status, page := admin.post("/deliveries/"+delivery+"/skip", url.Values{"event": {id}})
		wantPage(t, "skip, unconfirmed", status, page, http.StatusOK, "Skip delivery "+delivery+"?", "Skip the delivery")
		if got := b.onlyDelivery(t, id).Status; got != string(store.StatusPending) {
			t.Fatalf("the unconfirmed skip changed the delivery to %s", got)
		}
		status, page = admin.post("/deliveries/"+delivery+"/skip", url.Values{"event": {id}, "confirm": {"1"}})
		wantPage(t, "skip, confirmed", status, page, http.StatusOK, "skipped: it will not be tried again")
		if got := b.onlyDelivery(t, id).Status; got != string(store.StatusSkipped) {
			t.Errorf("after the confirmed skip the delivery is %s, want skipped", got)
		}
		if strings.Contains(page, `action="/deliveries/`+delivery+`/skip"`) {
			t.Errorf("a skipped delivery still offers to skip")
		}
		status, _ = admin.post("/deliveries/"+delivery+"/skip", url.Values{"confirm": {"1"}})
		if status != http.StatusConflict {
			t.Errorf("skip of a skipped delivery: %d, want 409", status)
		}
	}},
	{"the audit log names who did what", func(t *testing.T, b *bundle) {
		admin := b.login(t, adminToken)
		admin.post("/destinations/billing/pause", url.Values{})
		admin.post("/destinations/billing/resume", url.Values{})
		reader := b.login(t, readToken)
		status, page := reader.get("/audit?since=-1h")
		wantPage(t, "audit", status, page, http.StatusOK, "Audit log", "pause", "resume", "destination=billing", `value="-1h"`)
		if strings.Index(page, ">resume<") > strings.Index(page, ">pause<") {
			t.Errorf("the audit log is not newest first")
		}
		status, page = reader.get("/audit?since=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)))
		wantPage(t, "audit since a later time", status, page, http.StatusOK, "Nothing has been done since")
		status, _ = reader.get("/audit?since=soon")
		if status != http.StatusBadRequest {
			t.Errorf("audit?since=soon: %d, want 400", status)
		}
	}},
	{"jobs are listed, and an admin may cancel one", func(t *testing.T, b *bundle) {
		reader := b.login(t, readToken)
		status, page := reader.get("/jobs")
		wantPage(t, "no job", status, page, http.StatusOK, "No job has run")
		if status, _ := reader.post("/jobs/job_nope/cancel", url.Values{}); status != http.StatusForbidden {
			t.Errorf("a read session's cancel: %d, want 403", status)
		}
		admin := b.login(t, adminToken)
		if status, _ := admin.post("/jobs/job_nope/cancel", url.Values{}); status != http.StatusNotFound {
			t.Errorf("cancel of an unknown job: %d, want 404", status)
		}
	}},
	{"relative times filter as in the CLI", func(t *testing.T, b *bundle) {
		b.ingest(t, seed{source: "stripe", id: "evt_recent", typ: "invoice.paid"})
		b.ingest(t, seed{source: "stripe", id: "evt_old", typ: "invoice.paid", at: time.Now().Add(-3 * time.Hour)})
		c := b.login(t, readToken)
		status, page := c.get("/events?since=-1h")
		wantPage(t, "events since -1h", status, page, http.StatusOK, "evt_recent", `value="-1h"`)
		if strings.Contains(page, "evt_old") {
			t.Errorf("since=-1h lists an event of three hours ago")
		}
		status, page = c.get("/events?until=-2h")
		wantPage(t, "events until -2h", status, page, http.StatusOK, "evt_old")
	}},
	{"facts that do not apply are not shown", func(t *testing.T, b *bundle) {
		c := b.login(t, readToken)
		// Nothing waits: no oldest pending age, not "0s".
		for _, path := range []string{"/", "/destinations"} {
			status, page := c.get(path)
			wantPage(t, path+" with nothing pending", status, page, http.StatusOK, "Oldest pending")
			if regexp.MustCompile(`Oldest pending.*?\b0s\b`).MatchString(strings.ReplaceAll(page, "\n", " ")) {
				t.Errorf("%s shows an oldest pending age of 0s with nothing pending", path)
			}
		}
		// A pending delivery has a next attempt; a done one has none.
		id := b.ingest(t, seed{source: "stripe", id: "evt_facts", typ: "invoice.paid", destinations: []string{"billing"}})
		if _, page := c.get("/events/" + id); !strings.Contains(page, "Next attempt") || strings.Contains(page, "Finished") {
			t.Errorf("a pending delivery's facts: want a next attempt and no finish time")
		}
		ctx, now := context.Background(), time.Now()
		claims, err := b.store.ClaimDeliveries(ctx, store.ClaimRequest{Destination: "billing", Max: 1, Lease: time.Minute, Now: now})
		if err != nil || len(claims) != 1 {
			t.Fatalf("claim: %d claims, %v", len(claims), err)
		}
		if err := b.store.CompleteDelivery(ctx, store.Completion{
			DeliveryID: claims[0].Delivery.ID, LeaseToken: claims[0].LeaseToken, Status: store.StatusDone, Now: now,
			Attempt: store.Attempt{AttemptedAt: now, Duration: time.Millisecond, StatusCode: http.StatusOK},
		}); err != nil {
			t.Fatal(err)
		}
		if _, page := c.get("/events/" + id); strings.Contains(page, "Next attempt") || !strings.Contains(page, "Finished") {
			t.Errorf("a done delivery's facts: want a finish time and no next attempt")
		}
	}},
	{"replay a set: the dry-run count is what is re-armed", func(t *testing.T, b *bundle) {
		for _, p := range []string{"evt_s1", "evt_s2", "evt_s3"} {
			b.ingest(t, seed{source: "stripe", id: p, typ: "invoice.paid"})
		}
		b.ingest(t, seed{source: "stripe", id: "evt_s4", typ: "customer.created"})
		c := b.login(t, adminToken)
		status, page := c.get("/replay?source=stripe&type=invoice.*&destination=billing")
		wantPage(t, "form", status, page, http.StatusOK, `value="invoice.*"`)
		form := url.Values{"source": {"stripe"}, "type": {"invoice.*"}, "destination": {"billing"}}
		status, page = c.post("/replay", form)
		wantPage(t, "dry run", status, page, http.StatusOK, "3 deliveries match: 3 would be re-armed, 0 in flight left alone", "Replay 3 deliveries")
		form.Set("confirm", "1")
		status, page = c.post("/replay", form)
		wantPage(t, "confirmed", status, page, http.StatusOK, "3 deliveries matched, 3 re-armed")
		status, page = c.post("/replay", url.Values{"destination": {"billing"}, "status": {"dead"}})
		wantPage(t, "no dead letters", status, page, http.StatusOK, "0 deliveries match", "nothing to do")
	}},
	{"failures grouped, their events, and replay all after its dry run", testFailuresPage},
	{"backfill with its dry-run count", func(t *testing.T, b *bundle) {
		b.ingest(t, seed{source: "stripe", id: "evt_b1", typ: "invoice.paid", at: time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)})
		b.ingest(t, seed{source: "stripe", id: "evt_b2", typ: "invoice.paid", at: time.Date(2026, 3, 3, 9, 30, 0, 0, time.UTC)})
		c := b.login(t, adminToken)
		form := url.Values{"since": {"2026-03-03T00:00:00Z"}, "until": {"2026-03-04T00:00:00Z"}}
		status, page := c.post("/destinations/late/backfill", form)
		wantPage(t, "dry run", status, page, http.StatusOK, "2 events of the window", "Backfill 2 deliveries")
		form.Set("confirm", "1")
		status, page = c.post("/destinations/late/backfill", form)
		wantPage(t, "confirmed", status, page, http.StatusOK, "Backfill of late done: 2 deliveries created")
		status, page = c.post("/destinations/late/backfill", url.Values{"since": {"2026-03-04T00:00:00Z"}, "until": {"2026-03-03T00:00:00Z"}})
		wantPage(t, "bad window", status, page, http.StatusBadRequest, "must be before")
	}},
	{"re-verify", func(t *testing.T, b *bundle) {
		id := b.ingest(t, seed{source: "stripe", id: "evt_verify", typ: "invoice.paid"})
		c := b.login(t, readToken)
		status, page := c.post("/events/"+id+"/verify", nil)
		wantPage(t, "re-verify", status, page, http.StatusOK, "✓ Valid", "matched secret slot 0", "scheme stripe")
	}},
	{"log out", func(t *testing.T, b *bundle) {
		c := b.login(t, adminToken)
		if !c.hasSession(t) {
			t.Fatal("no session after log in")
		}
		status, page := c.post("/logout", nil)
		wantPage(t, "log out", status, page, http.StatusOK, `name="token"`)
		if c.hasSession(t) {
			t.Fatal("the session outlived log out")
		}
		status, page = c.post("/replay", url.Values{"source": {"stripe"}})
		wantPage(t, "POST after log out", status, page, http.StatusForbidden)
	}},
}

// hasSession reports whether the client's session opens the events page.
func (c *client) hasSession(t *testing.T) bool {
	t.Helper()
	_, page := c.get("/events")
	return strings.Contains(page, "Log out")
}

// wantReplayCounts fails unless the event's deliveries to destinations
// were re-armed n times (every delivery when destinations is empty).
func (b *bundle) wantReplayCounts(t *testing.T, eventID string, n int, destinations ...string) {
	t.Helper()
	ds, err := b.store.EventDeliveries(context.Background(), eventID)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if len(destinations) > 0 && !contains(destinations, d.Destination) {
			continue
		}
		if d.ReplayCount != n {
			t.Errorf("delivery to %s: replay count %d, want %d", d.Destination, d.ReplayCount, n)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// auditLines counts the audit lines of token's calls of path that were
// answered status.
// onlyDelivery returns the one delivery of an event, as the admin API
// shows it.
func (b *bundle) onlyDelivery(t *testing.T, eventID string) adminwire.Delivery {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.srv.URL+"/api/v1/events/"+eventID, nil)
	req.Header.Set("Authorization", "Bearer "+readToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ev adminwire.EventDetail
	if err := json.NewDecoder(resp.Body).Decode(&ev); err != nil || len(ev.Deliveries) != 1 {
		t.Fatalf("event %s: %d deliveries, %v", eventID, len(ev.Deliveries), err)
	}
	return ev.Deliveries[0]
}

func (b *bundle) auditLines(token, path string, status int) int {
	n := 0
	for _, line := range strings.Split(b.logs.String(), "\n") {
		var rec struct {
			Msg, Token, Path string
			Status           int
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "audit" && rec.Token == token && rec.Path == path && rec.Status == status {
			n++
		}
	}
	return n
}
