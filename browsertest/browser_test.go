package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Environment variables the browser tests read.
const (
	// requireBrowserEnv set to 1 makes a missing Chromium fail the browser
	// tests instead of skipping them (CI sets it).
	requireBrowserEnv = "HOOKRELAY_REQUIRE_BROWSER"
	// screenshotsEnv names the directory the screenshots are written to;
	// unset, they go under the system's temporary directory.
	screenshotsEnv = "HOOKRELAY_SCREENSHOTS"
	// docsShotsEnv names a directory (docs/ of the repository) to write
	// the README's small screenshots to, as JPEG at 1280 px.
	docsShotsEnv = "HOOKRELAY_DOCS_SCREENSHOTS"
)

// browserWidths are the viewport widths every page is photographed at.
var browserWidths = []int64{1280, 390}

// TestBrowser drives the console in a real headless Chromium against a
// whole relay delivering to a sink, on each driver.
func TestBrowser(t *testing.T) {
	t.Parallel()
	exe := findChromium(t)
	for _, d := range testdb.Drivers() {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			runBrowser(t, exe, d)
		})
	}
}

// findChromium returns the browser's path, or skips the test (fails it
// under HOOKRELAY_REQUIRE_BROWSER=1) when there is none.
func findChromium(t *testing.T) string {
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(requireBrowserEnv) == "1" {
		t.Fatalf("no Chromium found (/usr/bin/chromium) and %s=1: install it (apt-get install -y chromium)", requireBrowserEnv)
	}
	t.Skipf("browser tests skipped: no Chromium found (set %s=1 to fail instead)", requireBrowserEnv)
	return ""
}

// sink is a destination that records what it receives.
type sink struct {
	mu       sync.Mutex
	received []sinkDelivery // guarded by mu
	failing  string         // guarded by mu; a provider id answered 503
}

type sinkDelivery struct {
	webhookID, providerID, replay string
}

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	s.mu.Lock()
	s.received = append(s.received, sinkDelivery{
		webhookID:  r.Header.Get("webhook-id"),
		providerID: r.Header.Get("hookrelay-event-id"),
		replay:     r.Header.Get("hookrelay-replay"),
	})
	fail := s.failing != "" && r.Header.Get("hookrelay-event-id") == s.failing
	s.mu.Unlock()
	if fail {
		failAnswer(w)
	}
}

// of returns what the sink received for a provider event id.
func (s *sink) of(providerID string) []sinkDelivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sinkDelivery
	for _, d := range s.received {
		if d.providerID == providerID {
			out = append(out, d)
		}
	}
	return out
}

// Bearer secrets of the test config's tokens.
const (
	adminToken = "browser-admin-token-0123456789"
	readToken  = "browser-read-token-0123456789"
)

const browserSecret = "whsec_YnJvd3Nlci10ZXN0LXNlY3JldC1zdHJpcGU="

// browserRelay is a whole relay in-process, with a sink as its billing
// destination, and a handler destination, fulfilment, of checkout events
// as an application that embeds hookrelay declares one.
type browserRelay struct {
	relay *relay.Relay
	sink  *sink
	admin string // base URL of the admin listener
	logs  *relayproc.Buffer
	// fulfilled counts the calls of fulfilment's handler.
	fulfilled atomic.Int64
}

func startBrowserRelay(t *testing.T, driver testdb.Driver) *browserRelay {
	t.Helper()
	sk := &sink{}
	srv := httptest.NewServer(sk)
	t.Cleanup(srv.Close)
	// Two destinations of charge events fail: one answers 503 and has a
	// single attempt, so its deliveries die; at the other nothing
	// listens, and it tries again in an hour.
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(busy.Close)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nobody := closed.Addr().String()
	_ = closed.Close()
	yaml := `database: "` + driver.URL(t) + `"
listen: 127.0.0.1:0
admin_listen: 127.0.0.1:0
tokens:
  - {name: ops, role: admin, secret: "` + adminToken + `"}
  - {name: dashboard, role: read, secret: "` + readToken + `"}
sources:
  - {name: stripe, verify: stripe, secrets: ["` + browserSecret + `"]}
destinations:
  - {name: billing, url: "` + srv.URL + `/hooks", secret: "` + browserSecret + `", sources: [stripe], types: ["invoice.*"], backoff: [1s]}
  - {name: ledger, url: "` + busy.URL + `/hooks", secret: "` + browserSecret + `", sources: [stripe], types: ["charge.*"], max_attempts: 1}
  - {name: archive, url: "http://` + nobody + `/hooks", secret: "` + browserSecret + `", sources: [stripe], types: ["charge.*"], backoff: [1h]}
`
	cfg, err := config.Parse([]byte(yaml), t.TempDir(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	fulfilment := config.DefaultDestination()
	fulfilment.Name, fulfilment.Handler, fulfilment.Sources, fulfilment.Types = "fulfilment", true, []string{"stripe"}, []string{"checkout.*"}
	cfg.Destinations = append(cfg.Destinations, fulfilment)
	logs := &relayproc.Buffer{}
	r, err := relay.New(context.Background(), cfg, relay.RoleAll, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	br := &browserRelay{relay: r, sink: sk, logs: logs}
	r.SetHandlers(relay.Handlers{Funcs: map[string]delivery.Handler{
		"fulfilment": func(context.Context, any, store.Claim) error {
			br.fulfilled.Add(1)
			return nil
		},
	}})
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = r.Shutdown(ctx)
		if t.Failed() {
			t.Logf("relay logs:\n%s", logs.String())
		}
	})
	br.admin = "http://" + r.AdminAddr()
	return br
}

// send posts a Stripe event to the public listener, signed with secret,
// and returns the status code. A 503 is retried, as a provider would: it
// answers a relay whose storage is briefly busy.
func (br *browserRelay) send(t *testing.T, id, typ, secret string) int {
	t.Helper()
	body := fmt.Appendf(nil, `{"id":%q,"object":"event","type":%q,"created":%d,"data":{"object":{"id":"in_%s","amount_due":4200,"currency":"eur"}}}`,
		id, typ, time.Now().Unix(), id)
	h, err := signature.Sign(signature.Options{Scheme: "stripe", Secrets: []string{secret}}, 0, signature.Message{Body: body})
	if err != nil {
		t.Fatal(err)
	}
	var status int
	testkit.Eventually(t, 10*time.Second, "an answer other than 503 to "+id, func() error {
		req, _ := http.NewRequest(http.MethodPost, "http://"+br.relay.PublicAddr()+"/webhooks/stripe", strings.NewReader(string(body)))
		for k, v := range h {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		status = resp.StatusCode
		return testkit.Check(status != http.StatusServiceUnavailable, "answered 503")
	})
	return status
}

// settled waits until billing has nothing pending, processing or failed,
// and done deliveries.
func (br *browserRelay) settled(t *testing.T, done int64) {
	t.Helper()
	testkit.Eventually(t, 20*time.Second, fmt.Sprintf("billing to have %d done deliveries and no backlog", done), func() error {
		req, _ := http.NewRequest(http.MethodGet, br.admin+"/api/v1/stats", nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var st struct {
			Destinations map[string]map[string]float64 `json:"destinations"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			return err
		}
		b := st.Destinations["billing"]
		return testkit.Check(b["done"] == float64(done) && b["pending"]+b["processing"]+b["failed"] == 0, "billing's counts are %v", b)
	})
}

// browser is one headless Chromium with a fresh profile.
type browser struct {
	t     *testing.T
	ctx   context.Context
	base  string
	shots string
}

func newBrowser(t *testing.T, exe, base, shots string) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	// The first call starts the browser, whose life is its context's: it
	// gets no timeout of its own (the later steps do).
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("start the browser: %v", err)
	}
	return &browser{t: t, ctx: ctx, base: base, shots: shots}
}

// run runs the steps, each bounded in time.
func (b *browser) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// stepTimeout bounds one step of a browser test.
const stepTimeout = 30 * time.Second

// open navigates to path and waits for the selector.
func (b *browser) open(path, waitFor string) {
	b.t.Helper()
	b.run("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.CSS(waitFor)))
}

// text returns the text of the first element sel selects.
func (b *browser) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// liveText returns the text content of the first element matching sel in
// one script evaluation, so an element that live mode refreshes between
// finding it and reading it cannot fail the read; "" when none matches.
func (b *browser) liveText(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel)))
	if err != nil {
		b.t.Fatalf("read %s: %v", sel, err)
	}
	return s
}

// login fills the login form with token.
func (b *browser) login(token string) {
	b.t.Helper()
	b.open("/", `input[name="token"]`)
	b.run("log in",
		chromedp.SendKeys(chromedp.CSS(`input[name="token"]`), token),
		chromedp.Submit(chromedp.CSS(`input[name="token"]`)),
		chromedp.WaitVisible(chromedp.CSS(`nav[aria-label="Main"]`)),
	)
}

// shoot saves a full-page screenshot of the current page at each width.
func (b *browser) shoot(name string) {
	b.t.Helper()
	for _, w := range browserWidths {
		size := chromedp.EmulateViewport(w, 900)
		if w < 600 {
			size = chromedp.EmulateViewport(w, 844, chromedp.EmulateMobile, chromedp.EmulateScale(1))
		}
		// The page has been laid out at the new width once a frame shows
		// it (every page sets its viewport to the device's width).
		b.run("size the viewport", size, chromedp.Poll[chromedp.Void](fmt.Sprintf("window.innerWidth === %d", w)))
		ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		cancel()
		if err != nil {
			b.t.Fatalf("screenshot %s: %v", name, err)
		}
		path := filepath.Join(b.shots, fmt.Sprintf("%s-%d.png", name, w))
		if err := os.WriteFile(path, png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
	b.run("reset the viewport", chromedp.EmulateViewport(1280, 900))
}

// docShot writes the current page at 1280 px as a JPEG to the directory
// HOOKRELAY_DOCS_SCREENSHOTS names, if it names one.
func (b *browser) docShot(name string) {
	b.t.Helper()
	dir := os.Getenv(docsShotsEnv)
	if dir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	jpeg, err := chromedp.Run(ctx, chromedp.FullScreenshot(80))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".jpg"), jpeg, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// outOfSight sizes the viewport to a phone of the given width and returns
// the elements of sels (each must match some) that are not wholly inside
// it, or not shown at all; it then resets the viewport.
func (b *browser) outOfSight(width int64, sels ...string) []string {
	b.t.Helper()
	b.run("size the viewport", chromedp.EmulateViewport(width, 844, chromedp.EmulateMobile, chromedp.EmulateScale(1)))
	defer b.run("reset the viewport", chromedp.EmulateViewport(1280, 900))
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	list, err := json.Marshal(sels)
	if err != nil {
		b.t.Fatal(err)
	}
	hidden, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
		const out = [];
		for (const sel of `+string(list)+`) {
			const els = Array.from(document.querySelectorAll(sel));
			if (els.length === 0) out.push(sel + ": none");
			for (const el of els) {
				const r = el.getBoundingClientRect();
				if (r.width === 0 || r.left < 0 || r.right > window.innerWidth + 0.5) out.push(sel + " " + el.textContent.trim());
			}
		}
		return out;
	})()`))
	if err != nil {
		b.t.Fatalf("measure the page: %v", err)
	}
	return hidden
}

// mutatingButtons returns the texts of the page's buttons that start with
// a mutating verb.
func (b *browser) mutatingButtons() []string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("button"))
		.map(b => b.textContent.trim()).filter(t => /^(Replay|Backfill|Confirm)/.test(t))`))
	if err != nil {
		b.t.Fatalf("list buttons: %v", err)
	}
	return texts
}

// screenshotDir returns where this run's screenshots go.
func screenshotDir(t *testing.T, driver string) string {
	dir := os.Getenv(screenshotsEnv)
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "hookrelay-console-screenshots")
	}
	dir = filepath.Join(dir, driver)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

var countRE = regexp.MustCompile(`(\d[\d\x{a0}]*) would be re-armed`)
var rearmedRE = regexp.MustCompile(`(\d[\d\x{a0}]*) re-armed`)

func parseCount(t *testing.T, re *regexp.Regexp, s string) int {
	t.Helper()
	m := re.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no count in %q", s)
	}
	n, err := strconv.Atoi(strings.ReplaceAll(m[1], "\u00a0", ""))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func runBrowser(t *testing.T, exe string, driver testdb.Driver) {
	br := startBrowserRelay(t, driver)
	for i := 1; i <= 3; i++ {
		if status := br.send(t, fmt.Sprintf("evt_browser_%d", i), "invoice.paid", browserSecret); status != http.StatusOK {
			t.Fatalf("ingest: %d", status)
		}
	}
	if status := br.send(t, "evt_forged", "invoice.paid", "whsec_Zm9yZ2VkLXNlY3JldC1ub3QtY29uZmlndXJlZA=="); status != http.StatusUnauthorized {
		t.Fatalf("forged ingest: %d, want 401", status)
	}
	br.settled(t, 3)
	first := br.sink.of("evt_browser_2")
	if len(first) != 1 {
		t.Fatalf("the sink received evt_browser_2 %d times, want 1", len(first))
	}

	b := newBrowser(t, exe, br.admin, screenshotDir(t, driver.Name))
	b.open("/", `input[name="token"]`)
	b.shoot("login")
	b.login(adminToken)
	b.shoot("overview")
	// On a phone every section's link and every destination's dead count
	// are in sight, none scrolled out of the page.
	if hidden := b.outOfSight(390, `nav[aria-label="Main"] a`, `td[data-label="Dead"]`); len(hidden) > 0 {
		t.Errorf("at 390 px out of sight: %v", hidden)
	}

	// Live mode shows a new event without a reload.
	b.open("/events?live=1", "#events")
	if status := br.send(t, "evt_browser_live", "invoice.paid", browserSecret); status != http.StatusOK {
		t.Fatalf("ingest: %d", status)
	}
	testkit.Eventually(t, 20*time.Second, "the live listing to show the new event", func() error {
		rows := b.liveText("#events tbody")
		return testkit.Check(strings.Contains(rows, "evt_browser_live"), "it lists %q", rows)
	})
	br.settled(t, 4)

	// Find an event by its provider id, open it, replay it, confirm.
	b.open("/events", "#f-q")
	b.shoot("events")
	b.run("search the provider id",
		chromedp.SendKeys(chromedp.CSS("#f-q"), "evt_browser_2"),
		chromedp.Submit(chromedp.CSS("#f-q")),
		// Only a filtered listing offers to clear its filters.
		chromedp.WaitVisible(chromedp.CSS(`.filter-form a[href="/events"]`)),
	)
	if rows := b.text("#events tbody"); !strings.Contains(rows, "evt_browser_2") || strings.Contains(rows, "evt_browser_1") {
		t.Fatalf("the search lists %q", rows)
	}
	b.run("open the event", chromedp.Click(chromedp.CSS(`#events tbody td.clip a`)), chromedp.WaitVisible(chromedp.CSS("#provider-id")))
	if got := b.text("#provider-id"); !strings.Contains(got, "evt_browser_2") {
		t.Fatalf("the event page shows provider id %q", got)
	}
	b.shoot("event")
	b.docShot("console-event")
	b.run("press replay", chromedp.Click(chromedp.CSS("#replay-all")), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	if got := b.text("#dry-run"); !strings.Contains(got, "1 delivery match: 1 would be re-armed") {
		t.Fatalf("the event's dry run says %q", got)
	}
	if got := b.liveText("#handler-warning"); got != "" {
		t.Errorf("the replay of a push delivery warns %q", got)
	}
	b.run("confirm", chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS(".flash")))
	if got := b.text(".flash"); !strings.Contains(got, "1 delivery re-armed") {
		t.Fatalf("the replay says %q", got)
	}
	testkit.Eventually(t, 20*time.Second, "the sink to receive evt_browser_2 again", func() error {
		n := len(br.sink.of("evt_browser_2"))
		return testkit.Check(n == 2, "received %d times", n)
	})
	again := br.sink.of("evt_browser_2")[1]
	if again.webhookID != first[0].webhookID || again.replay != "1" {
		t.Fatalf("replayed delivery: webhook-id %q replay %q, want webhook-id %q replay 1", again.webhookID, again.replay, first[0].webhookID)
	}
	b.run("re-verify", chromedp.Click(chromedp.CSS("#reverify")), chromedp.WaitVisible(chromedp.CSS("#verification")))
	if got := b.text("#verification"); !strings.Contains(got, "Valid") || !strings.Contains(got, "slot 0") {
		t.Fatalf("re-verify says %q", got)
	}
	br.settled(t, 4)

	// Replay a filtered set: the dry-run count is the number re-armed.
	b.open("/replay?source=stripe&type=invoice.*&destination=billing", "#count")
	b.shoot("replay")
	b.run("count the set", chromedp.Click(chromedp.CSS("#count")), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	dry := parseCount(t, countRE, b.text("#dry-run"))
	b.shoot("replay-confirm")
	b.docShot("console-replay")
	b.run("confirm the set", chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS(".flash")))
	b.shoot("replay-result")
	rearmed := parseCount(t, rearmedRE, b.text(".flash"))
	if dry != 4 || rearmed != dry {
		t.Fatalf("dry run counted %d, the replay re-armed %d; want 4 and 4", dry, rearmed)
	}
	testkit.Eventually(t, 20*time.Second, "the sink to receive the set again", func() error {
		n := len(br.sink.of("evt_browser_1"))
		return testkit.Check(n == 2, "evt_browser_1 received %d times", n)
	})

	b.open("/destinations", "#dest-billing")
	b.shoot("destinations")
	testkit.Eventually(t, 20*time.Second, "the forged request to be recorded", func() error {
		b.open("/rejections", "table")
		rows := b.text("table tbody")
		return testkit.Check(strings.Contains(rows, "stripe"), "the rejections page lists %q", rows)
	})
	b.shoot("rejections")
	b.open("/audit", "table")
	if got := b.text("table tbody"); !strings.Contains(got, "replay") {
		t.Errorf("the audit page lists %q, want the replay made above", got)
	}
	b.shoot("audit")

	// Failures, grouped: each group's events, and its replay after the
	// replay page's dry run.
	for i := 1; i <= 2; i++ {
		if status := br.send(t, fmt.Sprintf("evt_charge_%d", i), "charge.failed", browserSecret); status != http.StatusOK {
			t.Fatalf("ingest: %d", status)
		}
	}
	testkit.Eventually(t, 20*time.Second, "both failing destinations' groups", func() error {
		b.open("/failures", "main h1")
		rows := b.liveText("#failures tbody")
		return testkit.Check(strings.Contains(rows, "ledger") && strings.Contains(rows, "archive") &&
			b.liveText("#failure-ledger-dead-5xx td[data-label=Count]") == "2" && b.liveText("#failure-archive-failed-refused td[data-label=Count]") == "2",
			"the groups read %q", rows)
	})
	b.shoot("failures")
	b.docShot("console-failures")
	if hidden := b.outOfSight(390, `#failures td.group-actions a`, `#failures td.group-actions button`, `#failures td.example`); len(hidden) > 0 {
		t.Errorf("failures at 390 px out of sight: %v", hidden)
	}
	b.run("open a group's events", chromedp.Click(chromedp.CSS(`#failure-archive-failed-refused td.group-actions a`)), chromedp.WaitVisible(chromedp.CSS("#events")))
	if rows := b.text("#events tbody"); !strings.Contains(rows, "evt_charge_1") || !strings.Contains(rows, "evt_charge_2") || strings.Contains(rows, "evt_browser_1") {
		t.Errorf("the group's events list %q", rows)
	}
	b.open("/failures", "#failure-ledger-dead-5xx")
	b.run("replay the dead group", chromedp.Click(chromedp.CSS(`#failure-ledger-dead-5xx button`)), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	if got := b.text("#dry-run"); !strings.Contains(got, "2 deliveries match: 2 would be re-armed") {
		t.Fatalf("the group's dry run says %q", got)
	}
	b.shoot("failures-confirm")
	b.run("confirm the group's replay", chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS(".flash")))
	if got := b.text(".flash"); !strings.Contains(got, "2 re-armed") {
		t.Fatalf("the group's replay says %q", got)
	}

	// The replay of a handler delivery says its effects apply again.
	if status := br.send(t, "evt_checkout", "checkout.session.completed", browserSecret); status != http.StatusOK {
		t.Fatalf("ingest: %d", status)
	}
	testkit.Eventually(t, 20*time.Second, "fulfilment's handler to run", func() error {
		return testkit.Check(br.fulfilled.Load() == 1, "it ran %d times", br.fulfilled.Load())
	})
	b.open("/events?q=evt_checkout", `#events tbody td.clip a`)
	b.run("open the checkout event", chromedp.Click(chromedp.CSS(`#events tbody td.clip a`)), chromedp.WaitVisible(chromedp.CSS("#provider-id")))
	b.run("press replay", chromedp.Click(chromedp.CSS("#replay-all")), chromedp.WaitVisible(chromedp.CSS("#handler-warning")))
	if got, want := b.text("#handler-warning"), "The delivery to re-arm is a handler delivery (fulfilment): its handler runs again and its effects apply again."; got != want {
		t.Fatalf("the handler delivery's dry run warns %q, want %q", got, want)
	}
	b.shoot("replay-handler-confirm")
	b.run("confirm", chromedp.Click(chromedp.CSS("#confirm")), chromedp.WaitVisible(chromedp.CSS(".flash")))
	testkit.Eventually(t, 20*time.Second, "fulfilment's handler to run again", func() error {
		return testkit.Check(br.fulfilled.Load() == 2, "it ran %d times", br.fulfilled.Load())
	})

	// A read session sees no mutating button.
	b.open("/logout", `input[name="token"]`)
	b.login(readToken)
	for _, path := range []string{"/", "/events", "/replay", "/destinations", "/rejections", "/failures"} {
		b.open(path, "main h1")
		if got := b.mutatingButtons(); len(got) != 0 {
			t.Errorf("%s: a read session sees %q", path, got)
		}
	}
	b.open("/events?q=evt_browser_2", `#events tbody td.clip a`)
	b.run("open the event", chromedp.Click(chromedp.CSS(`#events tbody td.clip a`)), chromedp.WaitVisible(chromedp.CSS("#provider-id")))
	if got := b.mutatingButtons(); len(got) != 0 {
		t.Errorf("event page: a read session sees %q", got)
	}
	b.shoot("event-read")
	searchAndHeaders(t, b, br)
}
