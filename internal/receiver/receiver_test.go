package receiver_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hookrelay/hookrelay/internal/groupcommit"
	"github.com/hookrelay/hookrelay/internal/receiver"
	"github.com/hookrelay/hookrelay/internal/route"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

const (
	stripeSecret = "whsec_test_receiver_secret"
	githubSecret = "github-test-receiver-secret"
	slackSecret  = "slack_signing_secret_for_tests"
	maxBody      = 4096
)

type testBundle struct {
	url       string
	receiver  *receiver.Receiver
	store     store.DB
	registry  *prometheus.Registry
	committer *groupcommit.Committer
	tally     *receiver.Tally
	now       time.Time
}

type setupOptions struct {
	maxConcurrency   int
	maxUnreadPerPeer int
	// gate, when set, holds every commit until it can receive from it.
	gate          chan struct{}
	minUploadRate int64
	uploadGrace   time.Duration
	// now is the receiver's clock; nil means time.Now.
	now func() time.Time
}

// setup runs a Receiver over a real, migrated database of the given driver
// behind an httptest server.
func setup(t *testing.T, driver testdb.Driver, opts setupOptions) *testBundle {
	t.Helper()
	deps := newIngestDeps(t, driver)
	st, logger := deps.store, deps.logger

	scheme := func(o signature.Options) signature.Scheme {
		s, err := signature.New(o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	router, err := route.New([]route.Destination{{Name: "billing", Sources: []string{"stripe"}, Types: []string{"invoice.*"}}})
	if err != nil {
		t.Fatal(err)
	}
	tally := receiver.NewTally(st, []string{"stripe", "slack", "nosecret"}, logger)
	t.Cleanup(tally.Close)

	var committer receiver.Committer = deps.committer
	if opts.gate != nil {
		committer = gatedCommitter{deps.committer, opts.gate}
	}
	b := &testBundle{store: st, registry: deps.registry, committer: deps.committer, tally: tally, now: time.Now()}
	rc := receiver.New(receiver.Options{
		Sources: []receiver.Source{
			{Name: "stripe", Scheme: scheme(signature.Options{Scheme: "stripe", Secrets: []string{stripeSecret}}), MaxBody: maxBody},
			{Name: "slack", Scheme: scheme(signature.Options{Scheme: "slack", Secrets: []string{slackSecret}}), MaxBody: maxBody},
			{Name: "nosecret", Scheme: scheme(signature.Options{Scheme: "stripe", Secrets: []string{""}}), MaxBody: maxBody},
			{Name: "github", Scheme: scheme(signature.Options{Scheme: "github", Secrets: []string{githubSecret}}), MaxBody: maxBody},
		},
		Router:     router,
		Committer:  committer,
		Rejections: deps.rejections,
		Tally:      tally,
		Metrics:    deps.metrics,
		Logger:     logger,
		Limits: receiver.NewLimits(receiver.LimitOptions{
			MaxConcurrency: opts.maxConcurrency, MaxUnreadPerPeer: opts.maxUnreadPerPeer}, logger),
		MinUploadRate: opts.minUploadRate,
		UploadGrace:   opts.uploadGrace,
		Now:           opts.now,
	})
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/{source}", rc)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	b.url, b.receiver = srv.URL, rc
	return b
}

// signedGitHub builds a GitHub delivery of body under the delivery id.
func signedGitHub(t *testing.T, url, delivery string, body []byte) *http.Request {
	t.Helper()
	return signedPost(t, url, signature.Options{Scheme: "github", Secrets: []string{githubSecret}},
		signature.Message{ID: delivery, Type: "push", Body: body})
}

// signedPost builds a POST of msg's body with the headers o signs it with.
func signedPost(t *testing.T, url string, o signature.Options, msg signature.Message) *http.Request {
	t.Helper()
	h, err := signature.Sign(o, 0, msg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(msg.Body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	return req
}

func stripeBody(id, typ string) []byte {
	return []byte(fmt.Sprintf(`{"id": "%s", "object": "event", "type": "%s", "created": 1700000000, "data": {"object": {"id": "in_1"}}}`, id, typ))
}

// signedStripe builds a POST of body signed with secret at ts.
func signedStripe(t *testing.T, url, secret string, body []byte, ts time.Time) *http.Request {
	t.Helper()
	req := signedPost(t, url, signature.Options{Scheme: "stripe", Secrets: []string{secret}}, signature.Message{Body: body, Now: ts})
	req.Header.Set("Content-Type", "application/json")
	return req
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func storedEventCount(t *testing.T, st store.Store) int64 {
	t.Helper()
	n, err := st.CountEvents(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func findEvent(t *testing.T, st store.Store, source, providerID string) store.Event {
	t.Helper()
	ev, err := st.EventByProviderID(context.Background(), source, providerID)
	if err != nil {
		t.Fatalf("find %s/%s: %v", source, providerID, err)
	}
	return ev
}

// TestStatusTable checks every row of the ingest contract's status table, on
// both drivers.
func TestStatusTable(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, driver, setupOptions{})
			now := time.Now()
			tests := []struct {
				name       string
				req        func() *http.Request
				wantStatus int
				wantRetry  bool
			}{
				{"verified and stored", func() *http.Request {
					return signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, stripeBody("evt_stored", "invoice.paid"), now)
				}, 200, false},
				{"verified, an id decoding would alter", func() *http.Request {
					return signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, []byte(`{"id":"evt_\ud800","type":"invoice.paid"}`), now)
				}, 400, false},
				{"unknown source", func() *http.Request {
					return signedStripe(t, b.url+"/webhooks/nope", stripeSecret, stripeBody("evt_x", "invoice.paid"), now)
				}, 404, false},
				{"method other than POST", func() *http.Request {
					req, _ := http.NewRequest(http.MethodGet, b.url+"/webhooks/stripe", nil)
					return req
				}, 405, false},
				{"declared body over the limit", func() *http.Request {
					return signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, bytes.Repeat([]byte("a"), maxBody+1), now)
				}, 413, false},
				{"chunked body over the limit", func() *http.Request {
					req := signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, bytes.Repeat([]byte("a"), maxBody+1), now)
					req.ContentLength = -1
					req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(bytes.Repeat([]byte("a"), maxBody+1))))
					return req
				}, 413, false},
				{"signature header missing", func() *http.Request {
					req := signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, stripeBody("evt_m", "invoice.paid"), now)
					req.Header.Del("Stripe-Signature")
					return req
				}, 400, false},
				{"signature header unparseable", func() *http.Request {
					req := signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, stripeBody("evt_u", "invoice.paid"), now)
					req.Header.Set("Stripe-Signature", "garbage")
					return req
				}, 400, false},
				{"signature matches no secret", func() *http.Request {
					return signedStripe(t, b.url+"/webhooks/stripe", "whsec_wrong", stripeBody("evt_w", "invoice.paid"), now)
				}, 401, false},
				{"signature of another length", func() *http.Request {
					req := signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, stripeBody("evt_l", "invoice.paid"), now)
					req.Header.Set("Stripe-Signature", fmt.Sprintf("t=%d,v1=abcd", now.Unix()))
					return req
				}, 401, false},
				{"timestamp outside tolerance", func() *http.Request {
					return signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, stripeBody("evt_old", "invoice.paid"), now.Add(-time.Hour))
				}, 400, false},
				{"verified but no event id", func() *http.Request {
					return signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, []byte(`{"type":"invoice.paid"}`), now)
				}, 400, false},
				{"source has no secret", func() *http.Request {
					return signedStripe(t, b.url+"/webhooks/nosecret", stripeSecret, stripeBody("evt_n", "invoice.paid"), now)
				}, 503, false},
				{"verified, body-only signature", func() *http.Request {
					return signedGitHub(t, b.url+"/webhooks/github", "delivery-1", []byte(`{"ref":"main"}`))
				}, 200, false},
				{"verified, the same delivery again", func() *http.Request {
					return signedGitHub(t, b.url+"/webhooks/github", "delivery-1", []byte(`{"ref":"main"}`))
				}, 200, false},
				{"verified, the same body and signature under a new delivery id", func() *http.Request {
					return signedGitHub(t, b.url+"/webhooks/github", "delivery-2", []byte(`{"ref":"main"}`))
				}, 409, false},
			}
			for _, tt := range tests {
				resp, body := do(t, tt.req())
				if resp.StatusCode != tt.wantStatus {
					t.Errorf("%s: status %d (%s), want %d", tt.name, resp.StatusCode, body, tt.wantStatus)
				}
				if got := resp.Header.Get("Retry-After") != ""; got != tt.wantRetry {
					t.Errorf("%s: Retry-After present = %v, want %v", tt.name, got, tt.wantRetry)
				}
			}
			if n := storedEventCount(t, b.store); n != 2 {
				t.Errorf("stored %d events, want only the two verified ones", n)
			}
		})
	}
}

func TestDuplicateIsOKAndWritesNothing(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, driver, setupOptions{})
			body := stripeBody("evt_dup", "invoice.paid")
			for i := range 3 {
				resp, text := do(t, signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, body, time.Now()))
				if resp.StatusCode != 200 {
					t.Fatalf("post %d: status %d %s", i, resp.StatusCode, text)
				}
				want := `{"status":"duplicate"}`
				if i == 0 {
					want = `{"status":"stored"}`
				}
				if text != want {
					t.Errorf("post %d: body %s, want %s", i, text, want)
				}
			}
			if n := storedEventCount(t, b.store); n != 1 {
				t.Errorf("stored %d events, want 1", n)
			}
		})
	}
}

func TestStorageUnavailableIs503(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, driver, setupOptions{})
			if err := b.store.Close(); err != nil {
				t.Fatal(err)
			}
			resp, text := do(t, signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, stripeBody("evt_down", "invoice.paid"), time.Now()))
			if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("status %d, Retry-After %q (%s); want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), text)
			}
		})
	}
}

// gatedCommitter holds each commit of the real committer until its gate
// lets it through.
type gatedCommitter struct {
	*groupcommit.Committer
	gate chan struct{}
}

func (g gatedCommitter) Commit(ctx context.Context, item store.IngestItem) (store.IngestOutcome, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return g.Committer.Commit(ctx, item)
}

func TestConcurrencyCapIs503(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			gate := make(chan struct{})
			b := setup(t, driver, setupOptions{maxConcurrency: 1, gate: gate})
			// Two requests at once: one holds the only slot while its commit
			// waits at the gate, so the other is refused for it, and then the
			// first is let through.
			type answer struct {
				status int
				retry  string
			}
			answers := make(chan answer, 2)
			for i := range 2 {
				req := signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, stripeBody(fmt.Sprintf("evt_cap_%d", i), "invoice.paid"), time.Now())
				go func() {
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						answers <- answer{}
						return
					}
					resp.Body.Close()
					answers <- answer{resp.StatusCode, resp.Header.Get("Retry-After")}
				}()
			}
			if a := <-answers; a.status != 503 || a.retry == "" {
				t.Errorf("request beside the held one: status %d Retry-After %q, want 503 with Retry-After", a.status, a.retry)
			}
			close(gate)
			if a := <-answers; a.status != 200 {
				t.Errorf("held request: status %d, want 200", a.status)
			}
		})
	}
}

func TestStoredEventIsExact(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, driver, setupOptions{})
			// Odd spacing and key order: the stored bytes must be these,
			// not a re-encoding.
			body := []byte("{\"type\":\"invoice.paid\",   \"id\":\"evt_exact\",\n\"created\":1700000000}")
			req := signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, body, time.Now())
			req.Header.Set("Authorization", "Bearer do-not-store")
			req.Header.Set("Cookie", "session=do-not-store")
			req.Header.Set("X-Custom", "kept")
			resp, text := do(t, req)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d %s", resp.StatusCode, text)
			}
			ev := findEvent(t, b.store, "stripe", "evt_exact")
			if !bytes.Equal(ev.Body, body) {
				t.Errorf("stored body %q, want %q", ev.Body, body)
			}
			if ev.Type != "invoice.paid" || ev.IDOrigin != store.IDFromBody || ev.SignatureSlot != 0 {
				t.Errorf("event = type %q origin %q slot %d", ev.Type, ev.IDOrigin, ev.SignatureSlot)
			}
			if !ev.OccurredAt.Equal(time.Unix(1700000000, 0)) {
				t.Errorf("occurred_at %v", ev.OccurredAt)
			}
			for _, h := range []string{"Authorization", "Cookie"} {
				if _, ok := ev.Headers[h]; ok {
					t.Errorf("sensitive header %s was stored", h)
				}
			}
			if got := ev.Headers["X-Custom"]; len(got) != 1 || got[0] != "kept" {
				t.Errorf("X-Custom = %v", got)
			}
			if ev.ContentType != "application/json" {
				t.Errorf("content type %q", ev.ContentType)
			}
			ds, err := b.store.EventDeliveries(context.Background(), ev.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) != 1 || ds[0].Destination != "billing" || ds[0].Status != store.StatusPending {
				t.Errorf("deliveries = %+v, want one pending to billing", ds)
			}
		})
	}
}

func TestSlackHandshakeIsAnsweredNotStored(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, driver, setupOptions{})
			body := []byte(`{"token":"x","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`)
			h, err := signature.Sign(signature.Options{Scheme: "slack", Secrets: []string{slackSecret}}, 0, signature.Message{Body: body, Now: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(http.MethodPost, b.url+"/webhooks/slack", bytes.NewReader(body))
			for k, v := range h {
				req.Header[k] = v
			}
			resp, text := do(t, req)
			if resp.StatusCode != 200 || !strings.Contains(text, "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P") {
				t.Fatalf("status %d body %q, want 200 with the challenge", resp.StatusCode, text)
			}
			if n := storedEventCount(t, b.store); n != 0 {
				t.Errorf("handshake stored %d events", n)
			}
		})
	}
}

func TestRejectionsAreRecorded(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, driver, setupOptions{})
			do(t, signedStripe(t, b.url+"/webhooks/stripe", "whsec_forged", stripeBody("evt_f", "invoice.paid"), time.Now()))
			do(t, signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, stripeBody("evt_s", "invoice.paid"), time.Now().Add(-10*time.Minute)))
			var rs []store.Rejection
			testkit.Eventually(t, 5*time.Second, "2 rejections recorded", func() error {
				var err error
				if rs, err = b.store.Rejections(context.Background(), 10); err != nil {
					t.Fatal(err)
				}
				return testkit.Check(len(rs) == 2, "%d recorded", len(rs))
			})
			byReason := map[string]store.Rejection{}
			for _, r := range rs {
				byReason[r.Reason] = r
			}
			if _, ok := byReason["signature_mismatch"]; !ok {
				t.Errorf("no signature_mismatch rejection in %+v", rs)
			}
			stale, ok := byReason["timestamp_out_of_tolerance"]
			if !ok || !stale.HasSkew || stale.Skew < 9*time.Minute {
				t.Errorf("stale rejection = %+v, want one with ~10m skew", stale)
			}
		})
	}
}

func TestTallyCountsOutcomes(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, driver, setupOptions{})
			url := b.url + "/webhooks/stripe"
			now := time.Now()
			do(t, signedStripe(t, url, stripeSecret, stripeBody("evt_t1", "invoice.paid"), now))
			do(t, signedStripe(t, url, stripeSecret, stripeBody("evt_t2", "invoice.paid"), now))
			do(t, signedStripe(t, url, stripeSecret, stripeBody("evt_t1", "invoice.paid"), now))
			do(t, signedStripe(t, url, "whsec_forged", stripeBody("evt_t3", "invoice.paid"), now))
			b.tally.Close() // flushes
			stats, err := b.store.Stats(context.Background(), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			want := store.SourceStats{Received: 2, Duplicates: 1, Rejected: 1}
			if got := stats.Sources["stripe"]; got != want {
				t.Errorf("stripe stats = %+v, want %+v", got, want)
			}
		})
	}
}
