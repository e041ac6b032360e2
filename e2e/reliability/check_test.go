package reliability

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/providersim"
)

// newSink starts a recording destination that verifies every delivery's
// signature with the sink's secret; it is closed when the test ends.
func newSink(t *testing.T, delay time.Duration) *providersim.Destination {
	t.Helper()
	d, err := providersim.NewDestination(providersim.DestinationOptions{Secret: sinkSecret, Delay: delay})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// startSimulator starts a provider simulator posting to url with the
// stripe source's secret; it is abandoned when the test ends.
func startSimulator(t *testing.T, url string, o providersim.Options) *providersim.Simulator {
	t.Helper()
	o.URL, o.Secret = url, stripeSecret
	sim, err := providersim.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	sim.Start(ctx)
	return sim
}

// loadFor lets the simulator's load run on until n more of its events have
// been acknowledged.
func loadFor(t *testing.T, sim *providersim.Simulator, n int) {
	t.Helper()
	from := sim.Acked()
	testkit.Eventually(t, time.Minute, fmt.Sprintf("%d more events acknowledged", n), func() error {
		return testkit.Check(sim.Acked() >= from+n, "%d acknowledged since", sim.Acked()-from)
	})
}

// finishSimulator starts no more events and waits until every event
// started has been acknowledged or given up.
func finishSimulator(t *testing.T, sim *providersim.Simulator, timeout time.Duration) providersim.Report {
	t.Helper()
	sim.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rep, err := sim.Wait(ctx)
	if err != nil {
		t.Fatalf("%v: %d of %d events acknowledged", err, len(rep.AckedIDs()), rep.Sent())
	}
	return rep
}

// checkPromise checks the run against the promise: every acknowledged event
// is stored exactly once, byte for byte, and every stored event reaches the
// destination at least once, with nothing left live or dead in the store.
// It waits up to drain for the deliveries: a delivery caught in flight by
// a crash is retried only when its lease runs out (the destination's
// timeout plus delivery.LeaseMargin), so drain must outlast that. Every
// event must also have been acknowledged in the end.
func checkPromise(t *testing.T, st store.DB, rep providersim.Report, dest *providersim.Destination, drain time.Duration) *providersim.Ledger {
	t.Helper()
	l, err := providersim.CheckStored(context.Background(), st, "stripe", rep, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	ds, err := l.WaitDrained(ctx, st, "sink", dest)
	if err != nil {
		t.Fatal(err)
	}
	l.CheckDelivered(dest)
	for _, p := range l.Problems {
		t.Error(p)
	}
	if c := ds.Counts; providersim.Live(ds) > 0 || c[store.StatusDead] > 0 || c[store.StatusDone] != int64(l.Stored) {
		t.Errorf("deliveries not drained within %v: %v", drain, c)
	}
	if l.Acked != l.Sent {
		t.Errorf("%d of %d events were never acknowledged", l.Sent-l.Acked, l.Sent)
	}
	return l
}

// logFigures writes the scenario's figures in one line that starts with
// RELIABILITY, the line RELIABILITY.md's tables are copied from.
func logFigures(t *testing.T, scenario string, f providersim.Figures, extra ...string) {
	t.Helper()
	line := fmt.Sprintf("RELIABILITY scenario=%s test=%s %s", scenario, t.Name(), f)
	if len(extra) > 0 {
		line += " " + strings.Join(extra, " ")
	}
	t.Log(line)
}

// statusList formats status counts as "200:12,503:4,none:3", codes in
// order, "none" counting tries that got no answer.
func statusList(m map[int]int) string {
	var parts []string
	for _, code := range slices.Sorted(maps.Keys(m)) {
		name := fmt.Sprint(code)
		if code == 0 {
			name = "none"
		}
		parts = append(parts, fmt.Sprintf("%s:%d", name, m[code]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ",")
}
