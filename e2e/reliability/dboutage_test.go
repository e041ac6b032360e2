package reliability

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/providersim"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestDatabaseOutage runs the relay on PostgreSQL through a TCP proxy and
// cuts the proxy under load: every connection closed, every new one
// refused, for a few seconds. While the database is away the relay must
// answer 503 and never 200, and /readyz must say 503; when the proxy comes
// back the relay must recover by itself, and the promise must hold.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	const outage = 4 * time.Second
	db := testdb.PostgresURL(t)
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newTCPProxy(t, u.Host)
	viaProxy := *u
	viaProxy.Host = proxy.Addr()

	dest := newSink(t, 0)
	p := startRelay(t, viaProxy.String(), dest.URL(), "[100ms, 500ms]")
	sim := startSimulator(t, p.ingestURL(), providersim.Options{
		Concurrency: 8, Rate: 100, MaxAttempts: 1000, Deadline: 2 * time.Minute,
	})
	probes := startReadyzProbe(p.admin, 100*time.Millisecond)
	defer probes.stop()

	loadFor(t, sim, 100) // events stored before the outage
	ackedBefore := sim.Acked()
	cutAt := proxy.cut()
	time.Sleep(outage) // the outage under test: the database is unreachable this long
	restoreAt := proxy.restore(t)

	var readyAt time.Time
	testkit.Eventually(t, 30*time.Second, "/readyz 200 once the database came back", func() error {
		at, ok := probes.firstAfter(restoreAt, http.StatusOK)
		readyAt = at
		return testkit.Check(ok, "not yet")
	})
	loadFor(t, sim, 100) // and after it
	probes.stop()
	rep := finishSimulator(t, sim, time.Minute)

	during := providersim.CountStatuses(rep.Within(cutAt, restoreAt))
	for _, r := range rep.Within(cutAt, restoreAt) {
		if r.Status != http.StatusServiceUnavailable {
			t.Errorf("event %s, try %d, sent %v into the outage: answered %d %s, want 503",
				r.EventID, r.Attempt, r.Sent.Sub(cutAt).Round(time.Millisecond), r.Status, r.Err)
		}
	}
	if during[http.StatusServiceUnavailable] == 0 {
		t.Errorf("no answer was given while the database was away: %v", during)
	}
	ready := probes.within(cutAt, restoreAt)
	if ready[http.StatusServiceUnavailable] == 0 || len(ready) != 1 {
		t.Errorf("/readyz during the outage: %v, want only 503", ready)
	}
	ackedAfter := 0
	for _, e := range rep.Events {
		if e.Acked && e.AckedAt.After(restoreAt) {
			ackedAfter++
		}
	}
	if ackedBefore == 0 || ackedAfter == 0 {
		t.Errorf("%d events acknowledged before the outage and %d after it; want some of each", ackedBefore, ackedAfter)
	}

	st := openStore(t, db)
	l := checkPromise(t, st, rep, dest, 60*time.Second)
	logFigures(t, "database-outage", l.Figures,
		fmt.Sprintf("outage=%.1fs", restoreAt.Sub(cutAt).Seconds()),
		"answers_during_outage="+statusList(during),
		"readyz_during_outage="+statusList(ready),
		fmt.Sprintf("ready_again_after=%.2fs", readyAt.Sub(restoreAt).Seconds()),
		fmt.Sprintf("attempts=%d", rep.Attempts()))
}
