package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Bounds of the forgery test's rejection record.
const (
	forgedRequests      = 20000
	forgerySenders      = 16
	rejectionsKeep      = 50
	rejectionsPerSecond = 20
)

var forgeryConfig = fmt.Sprintf(`ingest:
  rejections_keep: %d
  rejections_per_second: %d
`, rejectionsKeep, rejectionsPerSecond) + stripeSource

// TestHostileForgedFlood posts 20 000 well-formed signatures made with the
// wrong secret as fast as it can, while a genuine sender keeps posting.
// Every forgery is answered 401; the rejection record and the log grow by
// at most rejections_per_second a second, the record is trimmed to
// rejections_keep, and every genuine event is stored. It does not run in
// parallel, and runs the drivers one after the other: a flood as fast as
// it can loads both cores, and beside another it would hold the genuine
// requests past their bound.
func TestHostileForgedFlood(t *testing.T) {
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			db := driver.URL(t)
			p := startRelay(t, db, forgeryConfig, stripeEnv)
			url := "http://" + p.public + "/webhooks/stripe"
			forger := signature.Options{Scheme: "stripe", Secrets: []string{"whsec_Zm9yZ2VkLXNlY3JldA"}}

			stopGenuine := make(chan struct{})
			genuineDone := make(chan struct{})
			var (
				lat      latencies
				statuses = map[int]int{}
				genuine  atomic.Int64 // genuine requests answered so far
			)
			go func() {
				defer close(genuineDone)
				client := &http.Client{Timeout: 10 * time.Second}
				for i := 0; ; i++ {
					select {
					case <-stopGenuine:
						return
					case <-time.After(20 * time.Millisecond): // the genuine sender's pace
					}
					req := hostileStripe(t, p, stripeEvent(fmt.Sprintf("evt_flood_genuine_%d", i), ""), nil)
					start := time.Now()
					status, _, _, err := hostileDo(client, req)
					lat = append(lat, time.Since(start))
					if err != nil {
						status = -1
					}
					statuses[status]++
					genuine.Add(1)
				}
			}()

			var (
				next    atomic.Int64
				mu      sync.Mutex
				answers = map[int]int{}
				errs    []string
				wg      sync.WaitGroup
			)
			tr := &http.Transport{MaxIdleConnsPerHost: forgerySenders}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
			start := time.Now()
			for range forgerySenders {
				wg.Go(func() {
					got := map[int]int{}
					for i := next.Add(1); i <= forgedRequests; i = next.Add(1) {
						body := stripeEvent(fmt.Sprintf("evt_forged_%d", i), "")
						h, err := signature.Sign(forger, 0, signature.Message{Body: body})
						if err != nil {
							panic(err)
						}
						req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
						req.Header = h
						status, _, _, err := hostileDo(client, req)
						if err != nil {
							mu.Lock()
							errs = append(errs, err.Error())
							mu.Unlock()
							continue
						}
						got[status]++
					}
					mu.Lock()
					for k, v := range got {
						answers[k] += v
					}
					mu.Unlock()
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			n := genuine.Load()
			testkit.Eventually(t, 10*time.Second, "genuine requests after the flood", func() error {
				return testkit.Check(genuine.Load() >= n+3, "%d answered since", genuine.Load()-n)
			})
			close(stopGenuine)
			<-genuineDone

			if answers[401] != forgedRequests || len(errs) > 0 {
				t.Errorf("forgeries answered %v with %d errors (first: %v), want %d × 401", answers, len(errs), first(errs), forgedRequests)
			}
			// The recorder writes once a second: wait for its last batch,
			// when every forgery is either recorded or counted as not
			// (unless its once-a-minute trim has run meanwhile).
			st := openStore(t, db)
			var during int
			testkit.Eventually(t, 10*time.Second, "the rejection recorder's last batch", func() error {
				during = countRejections(t, st)
				unrecorded, err := scrapeValue(http.DefaultClient, "http://"+p.admin+"/metrics", "hookrelay_rejections_unrecorded_total")
				if err != nil {
					return err
				}
				trimmed := strings.Contains(p.logs.String(), "trimmed rejections")
				return testkit.Check(during+int(unrecorded) >= forgedRequests || trimmed, "%d recorded and %v not, of %d", during, unrecorded, forgedRequests)
			})
			// A token bucket of rejections_per_second, as deep, over the
			// whole run, plus the genuine sender's margin.
			bound := rejectionsPerSecond * (int(time.Since(start)/time.Second) + 2)
			if during > bound {
				t.Errorf("%d rejections recorded during a %s flood, want at most %d", during, elapsed.Round(time.Millisecond), bound)
			}
			logged := strings.Count(p.logs.String(), `"msg":"webhook rejected"`)
			if logged > bound {
				t.Errorf("%d rejections logged during the flood, want at most %d", logged, bound)
			}
			p50, worst := lat.summary()
			if statuses[200] != len(lat) || len(lat) == 0 {
				t.Errorf("genuine sender got %v during the flood, want only 200s", statuses)
			}
			if worst > genuineBound {
				t.Errorf("a genuine request took %s during the flood, want under %s", worst, genuineBound)
			}
			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exit code %d after SIGTERM", code)
			}
			after := countRejections(t, st)
			if after > rejectionsKeep {
				t.Errorf("%d rejections kept after shutdown, want at most rejections_keep = %d", after, rejectionsKeep)
			}
			stored := countStored(t, st, "stripe")
			if stored != int64(statuses[200]) {
				t.Errorf("stored %d events, want the %d genuine ones (no forgery)", stored, statuses[200])
			}
			t.Logf("RELIABILITY forged-flood driver=%s forged=%d rate_per_s=%.0f answered_401=%d rejections_recorded=%d (bound %d) logged=%d kept_after_trim=%d (keep %d) genuine_sent=%d acknowledged=%d stored=%d genuine_p50=%s genuine_max=%s lost=%d",
				driver.Name, forgedRequests, float64(forgedRequests)/elapsed.Seconds(), answers[401], during, bound, logged, after, rejectionsKeep,
				len(lat), statuses[200], stored, p50.Round(time.Millisecond), worst.Round(time.Millisecond), int64(statuses[200])-stored)
		})
	}
}

// first returns the first of ss, or "".
func first(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}
