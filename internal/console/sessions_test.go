package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/console"
)

// The suite's cases of relays that share one database, each case's
// bundle the first node: a session opened through one node opens all of
// them, and ends on all of them at once.
func init() {
	suite = append(suite, []struct {
		name string
		run  func(t *testing.T, b *bundle)
	}{
		{"a browser behind a balancer without sticky sessions", func(t *testing.T, a *bundle) {
			b := a.node(t, nil, console.Options{})
			lb := &balancer{hosts: []string{mustURL(t, a.srv.URL).Host, mustURL(t, b.srv.URL).Host}, served: map[string]int{}}
			c := a.anonymous(t)
			c.http.Transport = lb
			// GET / and POST /login go to different nodes, and so does the
			// page the log in redirects to.
			status, page := c.submitLogin(adminToken)
			wantPage(t, "log in", status, page, http.StatusOK, "Overview", "Log out")
			c.csrf = csrfOf(t, page)
			for _, path := range []string{"/events", "/destinations", "/audit", "/events"} {
				status, page := c.get(path)
				wantPage(t, path, status, page, http.StatusOK, "Log out")
			}
			// The pause runs on one node, the page it redirects to, with its
			// message, comes from the other; the message shows once.
			status, page = c.post("/destinations/billing/pause", url.Values{})
			wantPage(t, "pause", status, page, http.StatusOK, "billing is paused")
			if _, page := c.get("/destinations"); strings.Contains(page, "billing is paused:") {
				t.Errorf("the pause's message showed twice")
			}
			if lb.count(0) < 5 || lb.count(1) < 5 {
				t.Errorf("the balancer sent %d requests to one node and %d to the other, want both used", lb.count(0), lb.count(1))
			}
		}},
		{"a log out on one node ends the session on every node", func(t *testing.T, a *bundle) {
			b := a.node(t, nil, console.Options{})
			onA := a.login(t, adminToken)
			onB := onA.on(b)
			if !onB.hasSession(t) {
				t.Fatal("a session opened on node A does not open node B")
			}
			cookie := sessionCookieOf(t, onA)
			status, page := onB.post("/logout", nil)
			wantPage(t, "log out on B", status, page, http.StatusOK, `name="token"`)
			if onA.hasSession(t) {
				t.Fatal("node A still opens a session logged out on node B")
			}
			// The same cookie, kept by whoever held it, opens nothing either.
			stolen := a.anonymous(t)
			stolen.http.Jar.SetCookies(mustURL(t, a.srv.URL), []*http.Cookie{cookie})
			stolen.csrf = onA.csrf
			if stolen.hasSession(t) {
				t.Error("the cookie of a logged-out session opens node A")
			}
			status, page = stolen.post("/destinations/billing/pause", url.Values{})
			wantPage(t, "POST with a logged-out cookie", status, page, http.StatusForbidden, "Log in again")
		}},
		{"a reload ends its removed and changed tokens' sessions on its node alone", func(t *testing.T, a *bundle) {
			b := a.node(t, nil, console.Options{})
			admin := a.login(t, adminToken)
			reader := a.login(t, readToken)

			// Node A reloads a config without the read token: A ends that
			// token's sessions and no other; B, not yet reloaded, keeps them.
			removed := testCfg(t, strings.Replace(testConfig, `  - {name: dashboard, role: read, secret: "${READ}"}`, "", 1), nil)
			reloaded := a.node(t, removed, console.Options{})
			if reader.on(reloaded).hasSession(t) {
				t.Error("node A, reloaded without the read token, still opens its session")
			}
			if !admin.on(reloaded).hasSession(t) {
				t.Error("a reload that removed the read token ended the admin token's session")
			}
			if !reader.on(b).hasSession(t) {
				t.Error("node B, not reloaded, ended the read token's session")
			}

			// A token whose secret or role a reload changes is not the token
			// the session was opened with.
			for what, cfg := range map[string]*config.Config{
				"a new secret": testCfg(t, testConfig, map[string]string{"READ": "console-read-token-rotated-012345"}),
				"a new role":   testCfg(t, strings.Replace(testConfig, "{name: dashboard, role: read,", "{name: dashboard, role: admin,", 1), nil),
			} {
				n := a.node(t, cfg, console.Options{})
				if reader.on(n).hasSession(t) {
					t.Errorf("a reload that gave the read token %s still opens its session", what)
				}
				if !admin.on(n).hasSession(t) {
					t.Errorf("a reload that gave the read token %s ended the admin token's session", what)
				}
			}
		}},
		{"a node that cannot read its database says so and keeps the session", func(t *testing.T, a *bundle) {
			down := a.node(t, nil, console.Options{})
			c := a.login(t, adminToken)
			if err := down.store.Close(); err != nil {
				t.Fatal(err)
			}
			status, page := c.on(down).get("/events")
			wantPage(t, "GET without the database", status, page, http.StatusServiceUnavailable, "storage unavailable")
			status, page = c.on(down).post("/logout", nil)
			wantPage(t, "log out without the database", status, page, http.StatusServiceUnavailable, "storage unavailable")
			if !c.hasSession(t) {
				t.Error("a log out that could not be recorded removed the cookie")
			}
		}},
		{"a session ends when it expires", func(t *testing.T, a *bundle) {
			var mu sync.Mutex
			now := time.Now()
			clock := func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				return now
			}
			n := a.node(t, nil, console.Options{Now: clock, SessionTTL: time.Hour})
			c := n.login(t, readToken)
			mu.Lock()
			now = now.Add(time.Hour - time.Second)
			mu.Unlock()
			if !c.hasSession(t) {
				t.Fatal("a session ended before its lifetime")
			}
			mu.Lock()
			now = now.Add(time.Second)
			mu.Unlock()
			if c.hasSession(t) {
				t.Error("a session outlived its lifetime")
			}
		}},
	}...)
}

// testCfg parses yaml with the test environment, changed by env.
func testCfg(t *testing.T, yaml string, env map[string]string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), t.TempDir(), func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return testEnv[k]
	})
	if err != nil {
		t.Fatalf("parse test config: %v", err)
	}
	return cfg
}

// on returns the same browser — its cookies and its session's CSRF token
// — sending its requests to node n.
func (c *client) on(n *bundle) *client {
	other := *c
	other.base = n.srv.URL
	return &other
}

// sessionCookieOf returns the client's session cookie.
func sessionCookieOf(t *testing.T, c *client) *http.Cookie {
	t.Helper()
	for _, ck := range c.http.Jar.Cookies(mustURL(t, c.base)) {
		if ck.Name == "hookrelay_session" {
			return ck
		}
	}
	t.Fatal("no session cookie")
	return nil
}

// balancer sends each request to the next of its hosts in turn, as a load
// balancer without sticky sessions does. Cookies are not kept by port,
// so a browser's cookies go to every node.
type balancer struct {
	hosts []string

	mu     sync.Mutex
	next   int            // guarded by mu
	served map[string]int // requests per host; guarded by mu
}

func (lb *balancer) RoundTrip(req *http.Request) (*http.Response, error) {
	lb.mu.Lock()
	host := lb.hosts[lb.next%len(lb.hosts)]
	lb.next++
	lb.served[host]++
	lb.mu.Unlock()
	req = req.Clone(req.Context())
	req.URL.Host, req.Host = host, host
	return http.DefaultTransport.RoundTrip(req)
}

// count returns how many requests the i-th host was sent.
func (lb *balancer) count(i int) int {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.served[lb.hosts[i]]
}
