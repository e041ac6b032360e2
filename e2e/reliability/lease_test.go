package reliability

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// leaseTimeout is the sink's timeout in TestCrashAfterLeaseAtIngest: the
// lease of a push is twice it plus delivery.LeaseMargin (30 s), so the
// second relay takes the deliveries over about 40 s after the first
// leased them.
const leaseTimeout = 5 * time.Second

// holdingSink is a destination that, while holding, keeps every push
// waiting until its sender goes away and records none of them; then it
// answers 200 and records each push.
type holdingSink struct {
	srv     *httptest.Server
	holding atomic.Bool
	held    atomic.Int64

	mu     sync.Mutex
	pushes []sinkPush // guarded by mu
}

// sinkPush is one push the sink answered.
type sinkPush struct {
	webhookID string
	attempt   int
	at        time.Time
}

func newHoldingSink(t *testing.T) *holdingSink {
	t.Helper()
	s := &holdingSink{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if s.holding.Load() {
			s.held.Add(1)
			<-r.Context().Done() // the relay died, or gave up
			return
		}
		attempt, _ := strconv.Atoi(r.Header.Get("Hookrelay-Attempt"))
		s.mu.Lock()
		s.pushes = append(s.pushes, sinkPush{webhookID: r.Header.Get("Webhook-Id"), attempt: attempt, at: time.Now()})
		s.mu.Unlock()
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// forget drops the pushes answered so far.
func (s *holdingSink) forget() {
	s.mu.Lock()
	s.pushes = nil
	s.mu.Unlock()
}

func (s *holdingSink) answered() []sinkPush {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sinkPush(nil), s.pushes...)
}

// TestCrashAfterLeaseAtIngest kills a relay with SIGKILL right after it
// has acknowledged events whose deliveries it leased at ingest and was
// pushing — its admin API showing each processing, though the leases'
// batch row alone holds them — : the deliveries are lost with it, held
// under its leases. A second
// relay on the same database must leave them alone while those leases
// last, then claim and deliver each one, its lost attempt counted.
func TestCrashAfterLeaseAtIngest(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			const events = 5
			db := driver.URL(t)
			// Tests' schemas share one database, and so its notifications:
			// another test's pending delivery to a "sink" would wake this
			// relay's, which then claims a while instead of leasing.
			dest := "leased-" + strconv.FormatInt(time.Now().UnixNano(), 36)
			sink := newHoldingSink(t)
			p := launch(t, relayproc.RelayOptions{
				Binary: binary, ConfigPath: filepath.Join(t.TempDir(), "hookrelay.yaml"), Database: db,
				Config: fmt.Sprintf(`sources:
  - {name: stripe, verify: stripe, secrets: ["${REL_STRIPE_SECRET}"]}
destinations:
  - {name: %s, url: %q, secret: "${REL_SINK_SECRET}", sources: [stripe], timeout: %s, concurrency: 8, backoff: [100ms]}
tokens:
  - {name: ops, role: read, secret: %q}
log: {level: warn}
`, dest, sink.srv.URL, leaseTimeout, fleetToken("ops")),
				Env: relayEnv, ReadyTimeout: 30 * time.Second,
			})
			// Warm-up events are posted, each delivered before the next,
			// until one is leased at ingest: from then on the first relay's
			// engine has caught up with its queue and leases every event
			// at ingest. On a busy machine its first claim may not have
			// found the queue empty before the first warm-up event.
			st := openStore(t, db)
			warmUps := 0
			testkit.Eventually(t, 30*time.Second, "a warm-up event leased at ingest", func() error {
				before := leaseCount(t, p.admin, dest, "ingest")
				postStripe(t, p.ingestURL(), fmt.Sprintf("evt_warm_up_%d", warmUps))
				warmUps++
				waitDone(t, st, dest, int64(warmUps))
				return testkit.Check(leaseCount(t, p.admin, dest, "ingest") > before, "warm-up event %d claimed", warmUps)
			})
			before := leaseCount(t, p.admin, dest, "ingest")
			sink.holding.Store(true)
			ids := make([]string, events)
			posted := make([]time.Time, events)
			for i := range ids {
				posted[i] = time.Now()
				ids[i] = postStripe(t, p.ingestURL(), fmt.Sprintf("evt_leased_%d", i))
			}
			testkit.Eventually(t, leaseTimeout/2, "every push held by the sink", func() error {
				return testkit.Check(sink.held.Load() == events, "%d held", sink.held.Load())
			})
			// A sender may push a delivery before the request that leased
			// it has counted the lease.
			testkit.Eventually(t, 5*time.Second, "every delivery leased at ingest", func() error {
				n := leaseCount(t, p.admin, dest, "ingest") - before
				return testkit.Check(n == events, "%d of %d deliveries leased at ingest", n, events)
			})
			// The relay shows each delivery as it pushes it: processing,
			// its first attempt, under the lease it took at ingest.
			eventIDs := make([]string, events)
			for i, pid := range ids {
				e, err := st.EventByProviderID(t.Context(), "stripe", pid)
				if err != nil {
					t.Fatal(err)
				}
				eventIDs[i] = e.ID
				var detail adminwire.EventDetail
				code, err := adminJSON(p.admin, fleetToken("ops"), http.MethodGet, "/api/v1/events/"+e.ID, nil, &detail)
				if err != nil || code != http.StatusOK {
					t.Fatalf("GET event %s: %d, %v", e.ID, code, err)
				}
				if ds := detail.Deliveries; len(ds) != 1 || ds[0].Status != string(store.StatusProcessing) || ds[0].Attempts != 1 || ds[0].LeaseUntil == nil {
					t.Fatalf("GET event %s while its push is held: deliveries %+v; want one processing, attempt 1, leased", pid, ds)
				}
			}
			p.kill(t)

			// The deliveries' rows are deferred (store.Lease): none is
			// written until the leases run out, each no earlier than a
			// push lease after its event was posted; the store shows each
			// processing under its lease meanwhile.
			leasedUntil := map[string]time.Time{}
			for i, id := range eventIDs {
				ds, err := st.EventDeliveries(t.Context(), id)
				if err != nil || len(ds) != 1 || ds[0].Status != store.StatusProcessing || ds[0].Attempts != 1 {
					t.Fatalf("deliveries of %s after the kill: %+v, %v; want one processing, attempt 1", ids[i], ds, err)
				}
				if min := posted[i].Add(2*leaseTimeout + delivery.LeaseMargin); ds[0].LeaseUntil.Before(min) {
					t.Fatalf("delivery of %s leased until %v, want no earlier than %v", ids[i], ds[0].LeaseUntil, min)
				}
				leasedUntil[id] = ds[0].LeaseUntil
			}

			sink.forget()
			sink.holding.Store(false)
			q := p.restart(t)
			testkit.Eventually(t, 2*leaseTimeout+90*time.Second, "every delivery taken over", func() error {
				return testkit.Check(len(sink.answered()) >= events, "%d of %d delivered", len(sink.answered()), events)
			})
			seen := map[string]int{}
			for _, push := range sink.answered() {
				seen[push.webhookID]++
				until, ok := leasedUntil[push.webhookID]
				switch {
				case !ok:
					t.Errorf("push of an unknown event %s", push.webhookID)
				case push.at.Before(until):
					t.Errorf("event %s pushed at %v, while the dead relay's lease ran until %v", push.webhookID, push.at, until)
				case push.attempt != 2:
					t.Errorf("event %s pushed as attempt %d, want 2 (the lost attempt counted)", push.webhookID, push.attempt)
				}
			}
			for id := range leasedUntil {
				if seen[id] != 1 {
					t.Errorf("event %s delivered %d times by the second relay, want once", id, seen[id])
				}
			}
			waitDone(t, st, dest, int64(warmUps+events))
			if n := leaseCount(t, q.admin, dest, "claim"); n != events {
				t.Errorf("the second relay claimed %d deliveries, want %d", n, events)
			}
		})
	}
}

// waitDone waits until the destination has n deliveries done.
func waitDone(t *testing.T, st store.DB, destination string, n int64) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, fmt.Sprintf("%d deliveries done", n), func() error {
		s, err := st.Stats(t.Context(), time.Now())
		if err != nil {
			return err
		}
		counts := s.Destinations[destination].Counts
		return testkit.Check(counts[store.StatusDone] == n, "%v", counts)
	})
}

// leaseCount reads the destination's hookrelay_delivery_leases_total{how}
// from the relay's /metrics.
func leaseCount(t *testing.T, admin, destination, how string) int {
	t.Helper()
	m := scrapeMetrics(t, admin)
	prefix := fmt.Sprintf(`hookrelay_delivery_leases_total{destination=%q,how=%q} `, destination, how)
	for _, l := range strings.Split(m, "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /metrics", prefix)
	return 0
}

// postStripe posts one event signed with the stripe source's secret,
// fails the test unless it is acknowledged, and returns its provider id.
func postStripe(t *testing.T, url, id string) string {
	t.Helper()
	if code := postSigned(t, url, stripeSecret, id); code != http.StatusOK {
		t.Fatalf("post %s: %d", id, code)
	}
	return id
}

// postSigned posts a Stripe event of provider id id to url, signed with
// secret as Stripe signs, and returns the status it is answered.
func postSigned(t *testing.T, url, secret, id string) int {
	t.Helper()
	req, err := stripeRequest(t.Context(), url, secret, id)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// stripeRequest returns the request of a Stripe event of provider id id
// to url, signed with secret as Stripe signs.
func stripeRequest(ctx context.Context, url, secret, id string) (*http.Request, error) {
	body := fmt.Appendf(nil, `{"id":%q,"object":"event","type":"invoice.paid","created":%d}`, id, time.Now().Unix())
	h, err := signature.Sign(signature.Options{Scheme: "stripe", Secrets: []string{secret}}, 0, signature.Message{Body: body})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	return req, nil
}

// scrapeMetrics returns the relay's /metrics.
func scrapeMetrics(t *testing.T, admin string) string {
	t.Helper()
	resp, err := http.Get("http://" + admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
