package delivery

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

// TestEngineBuriesLostPush leaves a push delivery claimed by a worker that
// is gone — its lease runs out at once — with its one attempt used: the
// engine's claim marks it dead without pushing it, and reports the dead
// letter as a failed last attempt's: the alert, the metrics.
func TestEngineBuriesLostPush(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, b testBundle) {
		ep := newEndpoint(t, func(hit, int) (int, http.Header) { return http.StatusOK, nil })
		sink, alertSrv := newAlertSink(t, 0)
		events := ingestEvents(t, b.store, 1, []string{"d"}, nil)
		claims, err := b.queue.ClaimDeliveries(context.Background(), store.ClaimRequest{Destination: "d", Max: 1, Lease: time.Millisecond, Now: time.Now()})
		if err != nil || len(claims) != 1 {
			t.Fatalf("ClaimDeliveries = %d, %v; want 1 claim", len(claims), err)
		}
		dest := testDestination("d", ep.srv.URL)
		dest.MaxAttempts = 1
		startEngine(t, Options{Queue: b.queue, Destinations: []config.Destination{dest}, Alerts: config.Alerts{URL: alertSrv.URL}, Registerer: b.reg})

		waitStatus(t, b.store, events, "d", store.StatusDead, 10*time.Second)
		testkit.Eventually(t, 5*time.Second, "the alert", func() error {
			_, alerts, _ := sink.snapshot()
			return testkit.Check(len(alerts) > 0, "no alert yet")
		})
		d := deliveryOf(t, b.store, events[0].ID, "d")
		want := Alert{
			Kind: "dead_letter",
			Summary: fmt.Sprintf("d: delivery %d of src event %s (thing.happened) is dead after 1 attempt: %s",
				d.ID, events[0].ProviderEventID, store.LostAttemptError),
			DeliveryID: d.ID, EventID: events[0].ID, ProviderEventID: events[0].ProviderEventID,
			Source: "src", Type: "thing.happened", Destination: "d", Attempts: 1, LastError: store.LostAttemptError,
		}
		if _, alerts, _ := sink.snapshot(); len(alerts) != 1 || alerts[0] != want {
			t.Errorf("alerts = %+v, want exactly %+v", alerts, want)
		}
		if n := len(ep.received()); n != 0 {
			t.Errorf("destination received %d requests, want none", n)
		}
		if n := counterValue(t, b.reg, "hookrelay_dead_letters_total", map[string]string{"destination": "d"}); n != 1 {
			t.Errorf("hookrelay_dead_letters_total = %v, want 1", n)
		}
		if n := counterValue(t, b.reg, "hookrelay_deliveries_total", map[string]string{"destination": "d", "outcome": "dead"}); n != 1 {
			t.Errorf("hookrelay_deliveries_total{dead} = %v, want 1", n)
		}
	})
}
