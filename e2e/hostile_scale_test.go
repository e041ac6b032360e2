package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// The scale tests run a relay over a large seeded history (see
// hostile_seed_test.go) and check that work whose cost once grew with
// that history — a /metrics scrape, a replay, a backfill dry run — no
// longer takes ingest or memory with it.

// scaleAdminToken is the admin token of the scale tests' relay.
const scaleAdminToken = "scale-admin-token-5f1e"

// scaleConfig is the config of the scale tests: the seeded history on
// bulk, delivered to a pull destination (nothing is pushed when a replay
// re-arms it), the probe's webhooks on stripe, and late, which wants no
// type the history has.
const scaleConfig = `tokens:
  - {name: ops, role: admin, secret: "` + scaleAdminToken + `"}
` + stripeSource + `  - {name: ` + bulkSource + `, verify: stripe, secrets: ["${E2E_STRIPE_SECRET}"]}
destinations:
  - {name: sink, pull: true, secret: "whsec_c2NhbGUtc2luay1zaWduaW5n", sources: [stripe]}
  - {name: ` + bulkDestination + `, pull: true, secret: "whsec_c2NhbGUtYXJjaGl2ZS1zaWdu", sources: [` + bulkSource + `]}
  - {name: late, pull: true, secret: "whsec_c2NhbGUtbGF0ZS1zaWduaW5n", sources: [` + bulkSource + `], types: ["nothing.*"]}
`

// providerTimeout is how long the probe waits for an answer: the
// shortest a major provider gives (Shopify's five seconds). A webhook
// answered later is, to the provider, not answered.
const providerTimeout = 5 * time.Second

// scaleRelay migrates a database of driver, seeds it with seed, and
// starts a relay on it.
func scaleRelay(t *testing.T, drv testdb.Driver, seed func(database string)) *relayProc {
	t.Helper()
	database := drv.URL(t)
	path := writeConfig(t, database, "127.0.0.1:1", "127.0.0.1:2", scaleConfig)
	migrate(t, path, stripeEnv)
	seed(database)
	return startRelay(t, database, scaleConfig, stripeEnv)
}

// probeResult is what the ingest probe saw.
type probeResult struct {
	sent     int
	statuses map[string]int // "200", "503", or the error
	latency  []time.Duration
}

func (r probeResult) ok() bool { return r.statuses["200"] == r.sent }

// p99 returns the 99th percentile latency.
func (r probeResult) p99() time.Duration {
	if len(r.latency) == 0 {
		return 0
	}
	l := slices.Clone(r.latency)
	slices.Sort(l)
	return l[len(l)*99/100]
}

// probeIngest sends a signed webhook to the relay every 20 ms, one at a
// time, each waiting at most providerTimeout, until stop is closed. It
// adds one to sent as each is answered.
func probeIngest(t *testing.T, p *relayProc, name string, sent *atomic.Int64, stop <-chan struct{}) probeResult {
	client := &http.Client{Timeout: providerTimeout}
	res := probeResult{statuses: map[string]int{}}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return res
		case <-tick.C:
		}
		req := hostileStripe(t, p, stripeEvent(fmt.Sprintf("evt_%s_%d", name, i), ""), nil)
		start := time.Now()
		status, _, _, err := hostileDo(client, req)
		res.sent++
		sent.Add(1)
		res.latency = append(res.latency, time.Since(start))
		if err != nil {
			res.statuses[err.Error()]++
			continue
		}
		res.statuses[strconv.Itoa(status)]++
	}
}

// waitProbed waits until the probe counting into sent has had n webhooks
// answered.
func waitProbed(t *testing.T, sent *atomic.Int64, n int64) {
	t.Helper()
	testkit.Eventually(t, time.Minute, fmt.Sprintf("%d webhooks probed", n), func() error {
		return testkit.Check(sent.Load() >= n, "%d answered", sent.Load())
	})
}

// inBackground runs f in a goroutine until stop is closed and returns a
// function that waits for its result.
func inBackground[T any](f func(stop <-chan struct{}) T) (stop func(), wait func() T) {
	ch := make(chan struct{})
	done := make(chan T, 1)
	go func() { done <- f(ch) }()
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }, func() T { return <-done }
}

// TestLargeHistory runs a relay over a seeded history of 300 000
// deliveries (seeded once per driver, for both checks) and checks that
// scrapers do not starve ingest and that a webhook sent during a replay
// of the whole history is answered 200.
func TestLargeHistory(t *testing.T) {
	for _, drv := range testdb.Drivers() {
		t.Run(drv.Name, func(t *testing.T) {
			p := scaleRelay(t, drv, func(database string) { seedBulk(t, database, largeHistory) })
			t.Run("ScrapersDoNotStarveIngest", func(t *testing.T) { checkScrapers(t, p, drv.Name) })
			t.Run("WebhookDuringReplay", func(t *testing.T) { checkReplay(t, p, drv.Name) })
		})
	}
}

// largeHistory is how many deliveries TestLargeHistory seeds.
const largeHistory = 300_000

// checkScrapers has eight scrapers read /metrics without pause, 150
// times each (one to three seconds here), while a probe sends webhooks. Every scrape must answer within
// Prometheus's default scrape timeout (10 s) with the seeded count exact,
// and every webhook must be answered 200 within providerTimeout.
// (Counting every delivery per scrape, SQLite's scrapes ran past the
// collector's own timeout and came back without the delivery series, and
// webhooks waited seconds.)
func checkScrapers(t *testing.T, p *relayProc, driver string) {
	// Each scraper stops after scrapesEach scrapes, or at the latest
	// after scrapeFor, when the relay is slow enough that the failures
	// say so.
	const scrapers, scrapesEach, scrapeFor = 8, 150, 30 * time.Second
	want := fmt.Sprintf(`hookrelay_deliveries{destination=%q,kind="pull",status="done"}`, bulkDestination)

	var sentAlone, sentScraped atomic.Int64
	stopAlone, alone := inBackground(func(stop <-chan struct{}) probeResult { return probeIngest(t, p, "alone", &sentAlone, stop) })
	waitProbed(t, &sentAlone, 100) // the baseline: webhooks without scrapers
	stopAlone()
	base := alone()

	stopProbe, probe := inBackground(func(stop <-chan struct{}) probeResult { return probeIngest(t, p, "scraped", &sentScraped, stop) })
	var (
		mu       sync.Mutex
		scrapes  []time.Duration
		failures []string
		wg       sync.WaitGroup
	)
	client := &http.Client{Timeout: 10 * time.Second}
	end := time.Now().Add(scrapeFor)
	for range scrapers {
		wg.Go(func() {
			for range scrapesEach {
				if time.Now().After(end) {
					break
				}
				start := time.Now()
				v, err := scrapeValue(client, "http://"+p.admin+"/metrics", want)
				took := time.Since(start)
				mu.Lock()
				scrapes = append(scrapes, took)
				if err == nil && v != largeHistory {
					err = fmt.Errorf("%s = %v, want %d", want, v, largeHistory)
				}
				if err != nil && len(failures) < 5 {
					failures = append(failures, err.Error())
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	stopProbe()
	res := probe()
	slices.Sort(scrapes)
	t.Logf("RELIABILITY scenario=scrapers-vs-ingest driver=%s deliveries=%d scrapers=%d scrapes=%d scrape_p50=%v scrape_max=%v scrape_failures=%d webhooks=%d answers=%v webhook_p99_alone=%v webhook_p99_scraped=%v",
		driver, largeHistory, scrapers, len(scrapes), scrapes[len(scrapes)/2], scrapes[len(scrapes)-1], len(failures),
		res.sent, res.statuses, base.p99(), res.p99())
	if len(failures) > 0 {
		t.Errorf("scrapes failed, the first %d: %q", len(failures), failures)
	}
	if !res.ok() || res.sent < 10 {
		t.Errorf("webhooks during the scrapes: %d sent, answers %v; want every one 200 (and at least 10)", res.sent, res.statuses)
	}
}

// checkReplay replays the whole seeded history while a probe sends
// webhooks: the replay re-arms every delivery, and every webhook sent
// meanwhile is answered 200 within providerTimeout. (As one UPDATE, the
// replay held SQLite's only writer for its whole length, and webhooks
// waited behind it past the provider's timeout.)
func checkReplay(t *testing.T, p *relayProc, driver string) {
	var sent atomic.Int64
	stopProbe, probe := inBackground(func(stop <-chan struct{}) probeResult { return probeIngest(t, p, "replay", &sent, stop) })
	waitProbed(t, &sent, 10) // webhooks before the replay
	start := time.Now()
	status, answer := adminCall(p, "POST", "/api/v1/replay", fmt.Sprintf(`{"source":%q}`, bulkSource), 10*time.Minute)
	took := time.Since(start)
	waitProbed(t, &sent, sent.Load()+10) // and after it
	stopProbe()
	res := probe()
	t.Logf("RELIABILITY scenario=webhook-during-replay driver=%s deliveries=%d replay=%v answer=%s webhooks=%d answers=%v webhook_p99=%v",
		driver, largeHistory, took.Round(time.Millisecond), bytes.TrimSpace(answer), res.sent, res.statuses, res.p99())
	if status != http.StatusOK {
		t.Fatalf("replay: status %d: %s", status, answer)
	}
	var got struct{ Matched, Rearmed, InFlight int64 }
	if err := json.Unmarshal(answer, &got); err != nil {
		t.Fatal(err)
	}
	if got.Matched != largeHistory || got.Rearmed != largeHistory || got.InFlight != 0 {
		t.Errorf("replay answered %s, want %d matched and re-armed", answer, largeHistory)
	}
	if !res.ok() || res.sent < 10 {
		t.Errorf("webhooks during the replay: %d sent, answers %v; want every one 200 (and at least 10)", res.sent, res.statuses)
	}
}

// scrapeValue reads /metrics at url and returns the value of the series
// whose line starts with series.
func scrapeValue(client *http.Client, url, series string) (float64, error) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("scrape: status %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(rest), 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("scrape: no %s", series)
}

// TestBackfillDryRunMemory runs four backfill dry runs at once for a
// destination whose types match none of 1 200 events of 256 KiB: the
// relay must read no body it does not need, so its peak RSS stays under
// 200 MiB. (Reading every candidate's body, 1 000 a page, each dry run
// held a page of 250 MiB.)
func TestBackfillDryRunMemory(t *testing.T) {
	t.Parallel()
	const events, size, runs, bound = 1200, 256 << 10, 4, 200 << 20
	for _, drv := range testdb.Drivers() {
		t.Run(drv.Name, func(t *testing.T) {
			t.Parallel()
			var since, until time.Time
			p := scaleRelay(t, drv, func(database string) { since, until = seedBigBodies(t, database, events, size) })
			body := fmt.Sprintf(`{"destination":"late","since":%q,"until":%q,"dry_run":true}`,
				since.UTC().Format(time.RFC3339Nano), until.UTC().Format(time.RFC3339Nano))
			var (
				wg      sync.WaitGroup
				mu      sync.Mutex
				answers []string
			)
			start := time.Now()
			for range runs {
				wg.Go(func() {
					status, answer := adminCall(p, "POST", "/api/v1/backfill", body, 5*time.Minute)
					mu.Lock()
					answers = append(answers, fmt.Sprintf("%d %s", status, bytes.TrimSpace(answer)))
					mu.Unlock()
				})
			}
			wg.Wait()
			peak := peakRSS(t, p)
			t.Logf("RELIABILITY scenario=backfill-dry-run-memory driver=%s events=%d body_bytes=%d concurrent=%d took=%v peak_rss_mib=%d (bound %d) answers=%q",
				drv.Name, events, size, runs, time.Since(start).Round(time.Millisecond), peak>>20, bound>>20, answers)
			for _, a := range answers {
				if a != `200 {"matched":0,"created":0,"dry_run":true}` {
					t.Errorf("backfill dry run answered %s, want 200 with nothing matched", a)
				}
			}
			if peak > bound {
				t.Errorf("peak RSS %d MiB, want under %d MiB", peak>>20, bound>>20)
			}
		})
	}
}

// adminCall calls the relay's admin API with the admin token, waiting at
// most timeout; a transport error is status 0 with the error as answer.
func adminCall(p *relayProc, method, path, body string, timeout time.Duration) (int, []byte) {
	req, err := http.NewRequest(method, "http://"+p.admin+path, strings.NewReader(body))
	if err != nil {
		return 0, []byte(err.Error())
	}
	req.Header.Set("Authorization", "Bearer "+scaleAdminToken)
	req.Header.Set("Content-Type", "application/json")
	status, _, answer, err := hostileDo(&http.Client{Timeout: timeout}, req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	return status, answer
}
