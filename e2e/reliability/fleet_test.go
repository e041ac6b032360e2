package reliability

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// fleetLease is the runner's lease of TestFleetRunner's relays: short, so
// that a killed runner is replaced within the test.
const fleetLease = 3 * time.Second

// fleetAlert is what TestFleetRunner reads of a signature-failure alert.
type fleetAlert struct {
	Kind       string `json:"kind"`
	Source     string `json:"source"`
	Rejections int64  `json:"rejections"`
}

// alertSink records the alerts posted to it, in order.
type alertSink struct {
	srv *httptest.Server

	mu     sync.Mutex
	alerts []fleetAlert // guarded by mu
}

func newAlertSink(t *testing.T) *alertSink {
	t.Helper()
	s := &alertSink{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a fleetAlert
		if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
			t.Errorf("alert: %v", err)
		}
		s.mu.Lock()
		s.alerts = append(s.alerts, a)
		s.mu.Unlock()
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// wait returns the alerts posted once the last is of source, failing
// after 20 s.
func (s *alertSink) wait(t *testing.T, source string) []fleetAlert {
	t.Helper()
	var got []fleetAlert
	testkit.Eventually(t, 20*time.Second, "an alert of "+source, func() error {
		s.mu.Lock()
		got = append([]fleetAlert(nil), s.alerts...)
		s.mu.Unlock()
		return testkit.Check(len(got) > 0 && got[len(got)-1].Source == source, "alerts: %+v", got)
	})
	return got
}

// fleetRunners returns the relays of relays whose /metrics say they are the
// fleet's runner.
func fleetRunners(t *testing.T, relays []*relayProcess) []*relayProcess {
	t.Helper()
	var runners []*relayProcess
	for _, p := range relays {
		if strings.Contains(scrapeMetrics(t, p.admin), "\nhookrelay_fleet_runner 1\n") {
			runners = append(runners, p)
		}
	}
	return runners
}

// waitOneRunner waits until exactly one of relays reports itself the
// fleet's runner, and returns it.
func waitOneRunner(t *testing.T, within time.Duration, relays []*relayProcess) *relayProcess {
	t.Helper()
	var runners []*relayProcess
	testkit.Eventually(t, within, "exactly one runner", func() error {
		runners = fleetRunners(t, relays)
		return testkit.Check(len(runners) == 1, "%d runners", len(runners))
	})
	return runners[0]
}

// postForgedRoundRobin posts n requests to source signed with a secret it
// does not hold, one relay after the other, each answered 401.
func postForgedRoundRobin(t *testing.T, relays []*relayProcess, source string, n int) {
	t.Helper()
	for i := range n {
		url := "http://" + relays[i%len(relays)].public + "/webhooks/" + source
		if code := postSigned(t, url, "whsec_Zm9yZ2VkLWZsZWV0LXNlY3JldA==", fmt.Sprintf("evt_forged_%d", i)); code != http.StatusUnauthorized {
			t.Fatalf("forged post to %s: %d, want 401", source, code)
		}
	}
}

// TestFleetRunner runs three relays on one PostgreSQL database. Exactly one
// is the fleet's runner. Bad signatures posted round-robin, fewer on each
// relay than the alert threshold but more in all, raise one alert; more of
// them, each relay now over the threshold on its own, raise none. The
// runner is killed with SIGKILL: another relay becomes the runner once its
// lease has run out, and raises no second alert for the same flood.
func TestFleetRunner(t *testing.T) {
	t.Parallel()
	db := testdb.PostgresDatabaseURL(t)
	sink := newAlertSink(t)
	// The threshold is 10 rejections per source in 10 minutes, a window
	// the test stays within. The watchdog source's alert tells that the
	// runner has judged every rejection posted before it: its name sorts
	// after stripe's, which the rule judges first.
	config := fmt.Sprintf(`sources:
  - {name: stripe, verify: stripe, secrets: ["${REL_STRIPE_SECRET}"]}
  - {name: watchdog, verify: stripe, secrets: ["${REL_STRIPE_SECRET}"]}
fleet: {runner_lease: %s}
alerts:
  url: %q
  signature_failures: {rate: 1/m, window: 10m}
`, fleetLease, sink.srv.URL)
	relays := make([]*relayProcess, 3)
	for i := range relays {
		relays[i] = launch(t, relayproc.RelayOptions{
			Binary: binary, ConfigPath: filepath.Join(t.TempDir(), "hookrelay.yaml"), Database: db,
			Config: config, Env: relayEnv, ReadyTimeout: 30 * time.Second,
		})
	}

	runner := waitOneRunner(t, 10*time.Second, relays)
	if !strings.Contains(runner.Log(), `"msg":"fleet runner is this process"`) {
		t.Errorf("the runner does not say so in its log:\n%s", runner.Tail(20))
	}

	// 5 on each relay, 15 in all: over the threshold for the fleet only.
	postForgedRoundRobin(t, relays, "stripe", 15)
	alerts := sink.wait(t, "stripe")
	if len(alerts) != 1 || alerts[0].Kind != "signature_failures" || alerts[0].Rejections <= 10 {
		t.Fatalf("alerts = %+v, want one signature_failures alert of the fleet's rejections, over 10", alerts)
	}
	// 15 on each relay: each over the threshold on its own.
	postForgedRoundRobin(t, relays, "stripe", 30)

	killed := time.Now()
	runner.kill(t)
	var rest []*relayProcess
	for _, p := range relays {
		if p != runner {
			rest = append(rest, p)
		}
	}
	next := waitOneRunner(t, 2*fleetLease+5*time.Second, rest)
	t.Logf("relay %s became the runner %v after the runner was killed (lease %v)", next.admin, time.Since(killed).Round(time.Millisecond), fleetLease)

	postForgedRoundRobin(t, rest, "watchdog", 11) // its alert needs both relays' counts
	alerts = sink.wait(t, "watchdog")
	if len(alerts) != 2 || alerts[0].Source != "stripe" {
		t.Errorf("alerts = %+v, want stripe's once, then watchdog's", alerts)
	}
}
