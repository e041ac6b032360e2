package relay_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Console tokens of the relays below.
const (
	consoleAdminSecret = "relay-console-admin-0123456789"
	consoleReadSecret  = "relay-console-read-0123456789"
	consoleTokens      = `tokens:
  - {name: ops, role: admin, secret: "` + consoleAdminSecret + `"}
  - {name: dashboard, role: read, secret: "` + consoleReadSecret + `"}
`
)

// TestConsoleSessionsAcrossRelays runs two relays on one database, as
// behind a load balancer: a console session opened through one opens the
// other, a log out through either ends it on both, and a reload that
// removes a token ends that token's sessions on the relay that reloaded,
// and on the other once it reloads too, while the other token's session
// goes on.
func TestConsoleSessionsAcrossRelays(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			a := startRelay(t, db, consoleTokens)
			b := startRelay(t, db, consoleTokens)

			admin := consoleLogin(t, a, consoleAdminSecret)
			if !admin.loggedIn(t, b) {
				t.Fatal("a session opened through relay A does not open relay B")
			}
			admin.get(t, b, "/logout")
			admin.restore() // a copy of the cookie kept elsewhere
			if admin.loggedIn(t, a) || admin.loggedIn(t, b) {
				t.Fatal("a session logged out through relay B still opens a relay")
			}

			admin = consoleLogin(t, a, consoleAdminSecret)
			reader := consoleLogin(t, b, consoleReadSecret)
			withoutReader := strings.Replace(consoleTokens, `  - {name: dashboard, role: read, secret: "`+consoleReadSecret+`"}
`, "", 1)
			reloadWith(t, a, db, withoutReader)
			if reader.loggedIn(t, a) {
				t.Error("relay A, reloaded without the read token, still opens its session")
			}
			if !reader.loggedIn(t, b) {
				t.Error("relay B, not reloaded, ended the read token's session")
			}
			reloadWith(t, b, db, withoutReader)
			if reader.loggedIn(t, b) {
				t.Error("relay B, reloaded without the read token, still opens its session")
			}
			if !admin.loggedIn(t, a) || !admin.loggedIn(t, b) {
				t.Error("a reload that removed the read token ended the admin token's session")
			}
		})
	}
}

// reloadWith reloads r, on database, with its config's tokens set to
// tokens.
func reloadWith(t *testing.T, r *relay.Relay, database, tokens string) {
	t.Helper()
	cfg := relayConfig(t, database, tokens)
	r.SetConfigLoader(func() (*config.Config, error) { return cfg, nil })
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatalf("reload: %v", err)
	}
}

// browser is a console user: its cookies, sent to any relay (cookies are
// not kept by port), and the session cookie it logged in with.
type browser struct {
	http    *http.Client
	session *http.Cookie
}

// consoleLogin logs in to r's console with secret, as a user filling the
// login form.
func consoleLogin(t *testing.T, r *relay.Relay, secret string) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{http: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	_, page := b.get(t, r, "/")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no login form:\n%s", page)
	}
	resp, err := b.http.PostForm(adminURL(r, "/login"), url.Values{"csrf": {m[1]}, "token": {secret}})
	if err != nil {
		t.Fatal(err)
	}
	page = readBody(t, resp)
	if !strings.Contains(page, "Log out") {
		t.Fatalf("log in: status %d:\n%s", resp.StatusCode, page)
	}
	for _, ck := range jar.Cookies(resp.Request.URL) {
		if ck.Name == "hookrelay_session" {
			b.session = ck
		}
	}
	return b
}

// restore sets the session cookie the browser logged in with again.
func (b *browser) restore() {
	u := &url.URL{Scheme: "http", Host: "127.0.0.1"}
	b.http.Jar.SetCookies(u, []*http.Cookie{b.session})
}

// loggedIn reports whether the browser's session opens r's events page.
func (b *browser) loggedIn(t *testing.T, r *relay.Relay) bool {
	t.Helper()
	status, page := b.get(t, r, "/events")
	if status != http.StatusOK {
		t.Fatalf("GET /events: %d", status)
	}
	return strings.Contains(page, "Log out")
}

func (b *browser) get(t *testing.T, r *relay.Relay, path string) (int, string) {
	t.Helper()
	resp, err := b.http.Get(adminURL(r, path))
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, readBody(t, resp)
}

func adminURL(r *relay.Relay, path string) string { return "http://" + r.AdminAddr() + path }

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
