package adminapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/groupcommit"
	"github.com/hookrelay/hookrelay/internal/receiver"
	"github.com/hookrelay/hookrelay/internal/route"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Bearer secrets of the test config's tokens.
const (
	adminToken = "admin-token-0123456789"
	readToken  = "read-token-0123456789"
	aliceToken = "alice-token-0123456789"
	bobToken   = "bob-token-0123456789"
)

// Secrets of the test config's sources and destinations.
var testEnv = map[string]string{
	"ADMIN":        adminToken,
	"READ":         readToken,
	"ALICE":        aliceToken,
	"BOB":          bobToken,
	"STRIPE":       "whsec_stripe_secret_for_admin_tests",
	"GITHUB":       "github-secret-for-admin-tests",
	"GITLAB":       "gitlab-token-for-admin-tests",
	"BILLING_SIGN": "whsec_YmlsbGluZy1zaWduaW5nLXNlY3JldA==",
	"ALICE_SIGN":   "whsec_YWxpY2Utc2lnbmluZy1zZWNyZXQ=",
	"BOB_SIGN":     "whsec_Ym9iLXNpZ25pbmctc2VjcmV0",
}

// baseConfig is the config the tests start from; extra is appended to its
// destinations list.
const baseConfig = `
database: "sqlite:./unused.db"
tokens:
  - {name: ops, role: admin, secret: "${ADMIN}"}
  - {name: dashboard, role: read, secret: "${READ}"}
  - {name: alice, role: consumer, secret: "${ALICE}", destinations: [dev-alice]}
  - {name: bob, role: consumer, secret: "${BOB}", destinations: [dev-bob]}
sources:
  - {name: stripe, verify: stripe, secrets: ["${STRIPE}"]}
  - {name: github, verify: github, secrets: ["${GITHUB}"]}
  - {name: gitlab, verify: gitlab, secrets: ["${GITLAB}"]}
destinations:
  - name: billing
    url: http://127.0.0.1:9/hooks
    secret: "${BILLING_SIGN}"
    sources: [stripe]
    types: ["invoice.*"]
  - name: dev-alice
    pull: true
    secret: "${ALICE_SIGN}"
    sources: [stripe, github, gitlab]
    max_attempts: 2
    backoff: [1m]
  - name: dev-bob
    pull: true
    secret: "${BOB_SIGN}"
    sources: [stripe]
`

// parseConfig parses baseConfig with more destinations or tokens appended
// at the end of the destinations list.
func parseConfig(t testing.TB, extraDestinations string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(baseConfig+extraDestinations), t.TempDir(), func(k string) string { return testEnv[k] })
	if err != nil {
		t.Fatalf("parse test config: %v", err)
	}
	return cfg
}

// testBundle is one admin API over a real store, with a real receiver to
// fill it.
type testBundle struct {
	driver string
	url    string // the database's, as the config's database key takes it
	store  store.DB
	cfg    *config.Config
	api    *httptest.Server
	ingest *httptest.Server
	logs   *syncBuffer
	woken  *wakeLog

	mu          sync.Mutex
	receiveTime time.Time // guarded by mu; zero means now
}

// setup opens a fresh database of the driver and serves the admin API
// over it with the config cfg (nil means the base config).
func setup(t *testing.T, driver testdb.Driver, cfg *config.Config) *testBundle {
	t.Helper()
	ctx := context.Background()
	if cfg == nil {
		cfg = parseConfig(t, "")
	}
	quiet := slog.New(slog.DiscardHandler)
	url := driver.URL(t)
	st, err := storeopen.Open(ctx, url, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	b := &testBundle{driver: driver.Name, url: url, store: st, cfg: cfg, logs: &syncBuffer{}, woken: &wakeLog{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("admin API logs:\n%s", b.logs.String())
		}
	})
	b.api = b.serve(t, cfg, nil)
	b.ingest = httptest.NewServer(b.receiver(t, quiet))
	t.Cleanup(b.ingest.Close)
	return b
}

// serve starts another admin API over the bundle's store with cfg, as a
// relay restarted with a changed config would, and with the clock now (nil
// means time.Now).
func (b *testBundle) serve(t *testing.T, cfg *config.Config, now func() time.Time) *httptest.Server {
	t.Helper()
	logger := slog.New(slog.NewJSONHandler(b.logs, nil))
	srv := httptest.NewServer(adminapi.New(adminapi.Options{
		Store:  b.store,
		Config: cfg,
		Logger: logger,
		Wake:   b.woken.add,
		Now:    now,
	}))
	t.Cleanup(srv.Close)
	return srv
}

// serveCountingClaims starts another admin API over the bundle's store
// whose claims are counted as they return from the store, for a test that
// must know a long poll has looked once and is waiting.
func (b *testBundle) serveCountingClaims(t *testing.T) (*httptest.Server, *countedClaims) {
	t.Helper()
	q := &countedClaims{Queue: b.store}
	puller, err := delivery.NewPuller(delivery.PullerOptions{Queue: q, Events: b.store})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(adminapi.New(adminapi.Options{
		Store:  b.store,
		Config: b.cfg,
		Logger: slog.New(slog.NewJSONHandler(b.logs, nil)),
		Wake:   b.woken.add,
		Puller: puller,
	}))
	t.Cleanup(srv.Close)
	return srv, q
}

// countedClaims is a real queue that counts the claims that have returned.
type countedClaims struct {
	store.Queue
	returned atomic.Int64
}

func (c *countedClaims) ClaimDeliveries(ctx context.Context, req store.ClaimRequest) ([]store.Claim, error) {
	defer c.returned.Add(1)
	return c.Queue.ClaimDeliveries(ctx, req)
}

// receiver builds the ingest path as the relay does: the sources' schemes,
// the router and a group committer.
func (b *testBundle) receiver(t *testing.T, logger *slog.Logger) http.Handler {
	t.Helper()
	var sources []receiver.Source
	for _, s := range b.cfg.Sources {
		scheme, err := signature.New(s.SchemeOptions())
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, receiver.Source{Name: s.Name, Scheme: scheme, MaxBody: int64(s.MaxBody), Fingerprints: s.SlotFingerprints()})
	}
	var dests []route.Destination
	for _, d := range b.cfg.Destinations {
		dests = append(dests, route.Destination{Name: d.Name, Sources: d.Sources, Types: d.Types, OrderingKey: d.OrderingKey})
	}
	router, err := route.New(dests)
	if err != nil {
		t.Fatal(err)
	}
	metrics := receiver.NewMetrics(prometheus.NewRegistry())
	committer := groupcommit.New(b.store, groupcommit.Options{}, logger)
	t.Cleanup(committer.Close)
	rejections := receiver.NewRejectionRecorder(b.store, receiver.RejectionOptions{}, metrics, logger)
	t.Cleanup(rejections.Close)
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/{source}", receiver.New(receiver.Options{
		Sources:    sources,
		Router:     router,
		Committer:  committer,
		Rejections: rejections,
		Metrics:    metrics,
		Logger:     logger,
		Now:        b.clock,
	}))
	return mux
}

func (b *testBundle) clock() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.receiveTime.IsZero() {
		return time.Now()
	}
	return b.receiveTime
}

// receiveAt makes the receiver take the following events as received at
// at; the zero time means now.
func (b *testBundle) receiveAt(at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.receiveTime = at
}

// webhook is one event a test posts to the receiver.
type webhook struct {
	source, id, typ string
	body            []byte // default: a JSON object with id and type
	contentType     string // default: application/json
	signedAt        time.Time
}

// send posts w, signed as its provider would, and returns the hookrelay id
// of the stored event.
func (b *testBundle) send(t *testing.T, w webhook) string {
	t.Helper()
	id, err := b.post(w)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// post is send for goroutines other than the test's.
func (b *testBundle) post(w webhook) (string, error) {
	src, ok := b.cfg.Source(w.source)
	if !ok {
		return "", fmt.Errorf("no source %q", w.source)
	}
	if w.body == nil {
		w.body = fmt.Appendf(nil, `{"id":%q,"type":%q,"data":{"object":{"id":"obj_1"}}}`, w.id, w.typ)
	}
	if w.signedAt.IsZero() {
		w.signedAt = b.clock()
	}
	h, err := signature.Sign(src.SchemeOptions(), 0, signature.Message{ID: w.id, Type: w.typ, Body: w.body, Now: w.signedAt})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequest(http.MethodPost, b.ingest.URL+"/webhooks/"+w.source, bytes.NewReader(w.body))
	if err != nil {
		return "", err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	if w.contentType != "" {
		req.Header.Set("Content-Type", w.contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("ingest %s/%s: %d %s", w.source, w.id, resp.StatusCode, answer)
	}
	ev, err := b.store.EventByProviderID(context.Background(), w.source, w.id)
	if err != nil {
		return "", fmt.Errorf("stored event %s/%s: %w", w.source, w.id, err)
	}
	return ev.ID, nil
}

// sendStripe posts a Stripe event of the given type and returns its id.
func (b *testBundle) sendStripe(t *testing.T, id, typ string) string {
	t.Helper()
	return b.send(t, webhook{source: "stripe", id: id, typ: typ})
}

// call makes one admin API request with token (empty: none) and decodes a
// JSON answer into out when out is not nil. It returns the status code.
func (b *testBundle) call(t *testing.T, token, method, path string, body any, out any) int {
	t.Helper()
	return call(t, b.api.URL, token, method, path, body, out)
}

func call(t *testing.T, base, token, method, path string, body any, out any) int {
	t.Helper()
	resp := do(t, base, token, method, path, body)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode >= 300 {
		var e adminwire.Error
		if err := json.Unmarshal(data, &e); err != nil || e.Error == "" {
			t.Errorf("%s %s: %d answer %q is not {\"error\": …}", method, path, resp.StatusCode, data)
		}
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: decode %q: %v", method, path, data, err)
		}
	}
	if out != nil && resp.StatusCode >= 300 {
		if e, ok := out.(*adminwire.Error); ok {
			_ = json.Unmarshal(data, e)
		}
	}
	return resp.StatusCode
}

// do makes one request; body is sent as JSON unless it is a string.
func do(t *testing.T, base, token, method, path string, body any) *http.Response {
	t.Helper()
	var rd io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(v)
	default:
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// wantStatus fails the test unless got is want.
func wantStatus(t *testing.T, what string, got, want int) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: status %d, want %d", what, got, want)
	}
}

// wakeLog records the destinations the API woke.
type wakeLog struct {
	mu    sync.Mutex
	names []string
}

func (w *wakeLog) add(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.names = append(w.names, name)
}

func (w *wakeLog) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.names
	w.names = nil
	return n
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// forEachDriver runs test once per storage driver, in parallel.
func forEachDriver(t *testing.T, test func(t *testing.T, driver testdb.Driver)) {
	t.Parallel()
	for _, d := range testdb.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			test(t, d)
		})
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
