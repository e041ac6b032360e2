package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/hookrelay/hookrelay/internal/fleet"
	"github.com/hookrelay/hookrelay/internal/relay"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// runnerConfig is the config of the relays of these tests: a short runner
// lease, events without deliveries kept an hour, and, when alerts is set,
// signature-failure alerts past 3 rejections a minute posted there.
func runnerConfig(alerts string) string {
	c := "fleet: {runner_lease: 2s}\nretention: {done: 1h, dead: 1h}\n"
	if alerts != "" {
		c += "alerts:\n  url: \"" + alerts + "\"\n  signature_failures: {rate: 3/m, window: 1m}\n"
	}
	return c
}

// storeOldEvent stores an event received two hours ago, without
// deliveries: past its retention of an hour.
func storeOldEvent(t *testing.T, st store.Store, providerID string) {
	t.Helper()
	at := time.Now().Add(-2 * time.Hour).UTC()
	_, err := st.Ingest(context.Background(), []store.IngestItem{{Event: store.Event{
		ID: ulid.MustNew(ulid.Timestamp(at), ulid.DefaultEntropy()).String(), Source: "stripe", ProviderEventID: providerID,
		IDOrigin: store.IDFromBody, Type: "invoice.paid", Body: []byte(`{}`), SignatureSlot: 0, ReceivedAt: at,
	}}})
	if err != nil {
		t.Fatal(err)
	}
}

// waitPruned waits until the database holds no event.
func waitPruned(t *testing.T, st store.Store, within time.Duration) {
	t.Helper()
	testkit.Eventually(t, within, "the event past its retention pruned", func() error {
		n, err := st.CountEvents(context.Background(), "")
		if err != nil {
			return err
		}
		return testkit.Check(n == 0, "%d events", n)
	})
}

// isRunner reads hookrelay_fleet_runner from r's /metrics.
func isRunner(t *testing.T, r *relay.Relay) bool {
	t.Helper()
	m := scrape(t, r)
	for l := range strings.Lines(m) {
		if v, ok := strings.CutPrefix(l, "hookrelay_fleet_runner "); ok {
			return strings.TrimSpace(v) == "1"
		}
	}
	t.Fatalf("no hookrelay_fleet_runner in /metrics:\n%s", m)
	return false
}

// waitRunner waits until exactly one of relays reports itself the fleet's
// runner, and returns it.
func waitRunner(t *testing.T, within time.Duration, relays ...*relay.Relay) *relay.Relay {
	t.Helper()
	var runner *relay.Relay
	testkit.Eventually(t, within, "one runner", func() error {
		runner = nil
		n := 0
		for _, r := range relays {
			if isRunner(t, r) {
				runner = r
				n++
			}
		}
		return testkit.Check(n == 1, "%d runners", n)
	})
	return runner
}

// TestRunnerPrunes runs one relay on each driver — on SQLite the only
// process there can be, through the same election — which becomes the
// runner, says so in its log and /metrics, prunes an event past its
// retention at once, and releases its lease when it shuts down.
func TestRunnerPrunes(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			st := openStore(t, db)
			if err := st.Migrate(t.Context()); err != nil {
				t.Fatal(err)
			}
			storeOldEvent(t, st, "evt_old")
			var logs lockedBuffer
			r := startRelayLogging(t, db, runnerConfig(""), &logs)
			waitRunner(t, 10*time.Second, r)
			waitPruned(t, st, 10*time.Second)
			l, err := st.ReadFleetLease(t.Context(), fleet.RunnerLease)
			if err != nil || !l.HeldBy(l.Holder) {
				t.Fatalf("runner lease = %+v, %v: want one held", l, err)
			}
			said := false
			for line := range strings.Lines(logs.String()) {
				said = said || strings.Contains(line, `"msg":"fleet runner is this process"`) && strings.Contains(line, `"runner":"`+l.Holder+`"`)
			}
			if !said {
				t.Errorf("no log line names %s the runner:\n%s", l.Holder, logs.String())
			}
			if err := r.Shutdown(t.Context()); err != nil {
				t.Fatal(err)
			}
			if _, err := st.ReadFleetLease(t.Context(), fleet.RunnerLease); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("lease after Shutdown: %v, want released", err)
			}
		})
	}
}

// TestRunnerHandsOverOnShutdown runs two relays on one PostgreSQL
// database: one is the runner; rejections spread over both, each under the
// threshold, raise one alert from the fleet's total; when the runner shuts
// down, the other takes over at once, and prunes what is past its
// retention.
func TestRunnerHandsOverOnShutdown(t *testing.T) {
	t.Parallel()
	db := testdb.PostgresURL(t)
	sink := &signedAlertSink{}
	alerts := httptest.NewServer(sink)
	t.Cleanup(alerts.Close)
	a := startRelay(t, db, runnerConfig(alerts.URL))
	b := startRelay(t, db, runnerConfig(alerts.URL))
	runner := waitRunner(t, 10*time.Second, a, b)
	other := a
	if runner == a {
		other = b
	}

	for _, r := range []*relay.Relay{a, b, a, b} {
		if code := postForged(t, r, `{"id":"evt_forged","type":"invoice.paid"}`); code != 401 {
			t.Fatalf("forged post: %d, want 401", code)
		}
	}
	var al struct {
		Source     string
		Rejections int
	}
	if err := json.Unmarshal(sink.wait(t, 1)[0].body, &al); err != nil || al.Source != "stripe" || al.Rejections != 4 {
		t.Errorf("alert = %+v, %v: want stripe's, of 4 rejections (2 on each relay)", al, err)
	}
	if !strings.Contains(scrape(t, runner), `hookrelay_signature_alerts_total{outcome="sent",source="stripe"} 1`) {
		t.Error("the runner did not count the alert it posted")
	}

	st := openStore(t, db)
	storeOldEvent(t, st, "evt_old") // the runner pruned at its start, and waits a minute now
	if err := runner.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitRunner(t, 5*time.Second, other) // released: taken at the next try, a third of the lease away
	waitPruned(t, st, 10*time.Second)
}
