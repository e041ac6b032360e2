package console_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/console"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Bearer secrets of the test config's tokens.
const (
	adminToken    = "console-admin-token-0123456789"
	readToken     = "console-read-token-0123456789"
	consumerToken = "console-consumer-token-0123456789"
)

var testEnv = map[string]string{
	"ADMIN":    adminToken,
	"READ":     readToken,
	"CONSUMER": consumerToken,
	"STRIPE":   "whsec_stripe_secret_for_console_tests",
	"SIGN":     "whsec_YmlsbGluZy1zaWduaW5nLXNlY3JldA==",
}

const testConfig = `
database: "sqlite:./unused.db"
tokens:
  - {name: ops, role: admin, secret: "${ADMIN}"}
  - {name: dashboard, role: read, secret: "${READ}"}
  - {name: alice, role: consumer, secret: "${CONSUMER}", destinations: [dev-alice]}
sources:
  - {name: stripe, verify: stripe, secrets: ["${STRIPE}"]}
  - {name: github, verify: github, secrets: ["${STRIPE}"]}
destinations:
  - {name: billing, url: "http://127.0.0.1:9/hooks", secret: "${SIGN}", sources: [stripe], types: ["invoice.*"]}
  - {name: dev-alice, pull: true, secret: "${SIGN}", sources: [stripe, github]}
  - {name: late, url: "http://127.0.0.1:9/late", secret: "${SIGN}", sources: [stripe]}
`

// bundle is one console over a real store of one driver.
type bundle struct {
	driver string
	url    string // the database's URL
	store  store.DB
	cfg    *config.Config
	srv    *httptest.Server
	logs   *relayproc.Buffer
}

// setup opens a fresh database of the driver and serves the console and
// the admin API over it, as the relay's admin listener does.
func setup(t testing.TB, driver testdb.Driver) *bundle {
	t.Helper()
	ctx := context.Background()
	cfg, err := config.Parse([]byte(testConfig), t.TempDir(), func(k string) string { return testEnv[k] })
	if err != nil {
		t.Fatalf("parse test config: %v", err)
	}
	dbURL := driver.URL(t)
	st, err := storeopen.Open(ctx, dbURL, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	b := &bundle{driver: driver.Name, url: dbURL, store: st, cfg: cfg, logs: &relayproc.Buffer{}}
	b.serve(t, console.Options{})
	return b
}

// serve serves the console and the admin API over b's store and config,
// as the relay's admin listener does, with o's clock and session
// lifetime.
func (b *bundle) serve(t testing.TB, o console.Options) {
	t.Helper()
	logger := slog.New(slog.NewJSONHandler(b.logs, nil))
	svc := adminapi.NewService(adminapi.Options{Store: b.store, Config: b.cfg, Logger: logger})
	mux := http.NewServeMux()
	mux.Handle("/api/", svc.Handler())
	o.Service, o.Store, o.Logger = svc, b.store, logger
	mux.Handle("/", console.New(o))
	b.srv = httptest.NewServer(mux)
	t.Cleanup(b.srv.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logs of %s:\n%s", b.srv.URL, b.logs.String())
		}
	})
}

// node serves a second relay's console and admin API on b's database,
// through a store of its own, with cfg (b's when nil) and o's clock and
// session lifetime: another node behind the same load balancer, or b's
// node as a reload of cfg rebuilds it.
func (b *bundle) node(t testing.TB, cfg *config.Config, o console.Options) *bundle {
	t.Helper()
	st, err := storeopen.Open(context.Background(), b.url, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if cfg == nil {
		cfg = b.cfg
	}
	n := &bundle{driver: b.driver, url: b.url, store: st, cfg: cfg, logs: &relayproc.Buffer{}}
	n.serve(t, o)
	return n
}

// seed is one event a test stores.
type seed struct {
	source, id, typ string
	body            []byte // default: a JSON object with id and type
	at              time.Time
	destinations    []string // default: what the config routes it to
}

// ingest stores s as the receiver would, signed headers included, and
// returns its hookrelay id.
func (b *bundle) ingest(t testing.TB, s seed) string {
	t.Helper()
	if s.at.IsZero() {
		s.at = time.Now().UTC()
	}
	if s.body == nil {
		s.body = fmt.Appendf(nil, `{"id":%q,"type":%q,"data":{"object":{"id":"obj_1"}}}`, s.id, s.typ)
	}
	src, ok := b.cfg.Source(s.source)
	if !ok {
		t.Fatalf("no source %q", s.source)
	}
	h, err := signature.Sign(src.SchemeOptions(), 0, signature.Message{ID: s.id, Type: s.typ, Body: s.body, Now: s.at})
	if err != nil {
		t.Fatal(err)
	}
	h.Set("Content-Type", "application/json")
	id := ulid.MustNew(ulid.Timestamp(s.at), rand.Reader).String()
	item := store.IngestItem{Event: store.Event{
		ID: id, Source: s.source, ProviderEventID: s.id, IDOrigin: store.IDFromBody, Type: s.typ,
		Body: s.body, ContentType: "application/json", Headers: h, SignatureSlot: 0, ReceivedAt: s.at,
	}}
	if s.destinations == nil {
		for _, d := range b.cfg.Destinations {
			if d.Name == "billing" && strings.HasPrefix(s.typ, "invoice.") && s.source == "stripe" || d.Name == "dev-alice" {
				s.destinations = append(s.destinations, d.Name)
			}
		}
	}
	for _, d := range s.destinations {
		item.Deliveries = append(item.Deliveries, store.NewDelivery{Destination: d})
	}
	if _, err := b.store.Ingest(context.Background(), []store.IngestItem{item}); err != nil {
		t.Fatal(err)
	}
	return id
}

// client is a browser: a cookie jar and the CSRF token of its session.
type client struct {
	t    testing.TB
	base string
	http *http.Client
	csrf string
}

func (b *bundle) anonymous(t testing.TB) *client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, base: b.srv.URL, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
}

// login opens a session with token, as a user filling the login form.
func (b *bundle) login(t testing.TB, token string) *client {
	t.Helper()
	c := b.anonymous(t)
	status, page := c.submitLogin(token)
	if status != http.StatusOK || !strings.Contains(page, "Overview") {
		t.Fatalf("log in: status %d, page:\n%s", status, page)
	}
	c.csrf = csrfOf(t, page)
	return c
}

// loginCookie sends the login form with token the way a browser would,
// without following the redirect, and returns the session cookie it got.
func (b *bundle) loginCookie(t testing.TB, token string) *http.Cookie {
	t.Helper()
	csrf := "csrf-" + token
	req, err := http.NewRequest(http.MethodPost, b.srv.URL+"/login", strings.NewReader(url.Values{"csrf": {csrf}, "token": {token}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: "hookrelay_login", Value: csrf})
	resp, err := b.srv.Client().Transport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "hookrelay_session" && c.Value != "" {
			return c
		}
	}
	t.Fatalf("log in with %s: status %d and no session cookie", token, resp.StatusCode)
	return nil
}

// submitLogin loads the login page and sends its form with token.
func (c *client) submitLogin(token string) (int, string) {
	c.t.Helper()
	_, page := c.get("/")
	return c.postRaw("/login", url.Values{"csrf": {csrfOf(c.t, page)}, "token": {token}}, nil)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func csrfOf(t testing.TB, page string) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field in the page:\n%s", page)
	}
	return m[1]
}

func (c *client) get(path string) (int, string) {
	c.t.Helper()
	resp, err := c.http.Get(c.base + path)
	if err != nil {
		c.t.Fatal(err)
	}
	return readAll(c.t, resp)
}

// post sends a form with the session's CSRF token.
func (c *client) post(path string, form url.Values) (int, string) {
	c.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", c.csrf)
	return c.postRaw(path, form, nil)
}

// postRaw sends a form as it is, with extra headers.
func (c *client) postRaw(path string, form url.Values, header http.Header) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	return readAll(c.t, resp)
}

func readAll(t testing.TB, resp *http.Response) (int, string) {
	t.Helper()
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// wantPage fails unless the answer is status and holds every text.
func wantPage(t *testing.T, what string, status int, page string, wantStatus int, texts ...string) {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("%s: status %d, want %d; page:\n%s", what, status, wantStatus, page)
	}
	for _, s := range texts {
		if !strings.Contains(page, s) {
			t.Fatalf("%s: page lacks %q:\n%s", what, s, page)
		}
	}
}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
