package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/providersim"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestLibraryCrash runs the example application, examples/orders — hookrelay
// embedded, marking orders paid from invoice.paid events inside the
// transaction that marks each event handled — under the provider
// simulator's load, its handler held 20 ms inside each transaction,
// SIGKILLs it several times and restarts it. At least one kill must have
// landed while a handler's transaction was open, as the application's
// log shows it (a handler started and did not return before the kill).
// Every acknowledged event's effect must then be applied exactly once: one
// payment row per event, none missing, none twice, and each order's paid
// amount its event's amount (a sum: a second application would double
// it). The same relay also pushes every event to an HTTP destination,
// which must see duplicates after the kills: at-least-once, where the
// handler is exactly-once.
func TestLibraryCrash(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			const kills = 4
			rng := seededRand(t)
			start := time.Now()

			db := ordersDatabase(t, driver)
			dest := newSink(t, 20*time.Millisecond)
			p := startOrders(t, db, dest.URL(), "[100ms, 500ms]")
			sim := startSimulator(t, p.ingestURL(), providersim.Options{
				Concurrency: 8, Rate: 150, MaxAttempts: 1000, Deadline: 2 * time.Minute,
			})
			p, _ = killRepeatedly(t, p, kills, rng)
			loadFor(t, sim, 200) // the last relay started takes load too
			rep := finishSimulator(t, sim, time.Minute)

			// The push destination: every event stored once and delivered
			// at least once.
			st := openStore(t, db)
			l := checkPromise(t, st, rep, dest, 60*time.Second)
			if l.Duplicates == 0 {
				t.Errorf("the push destination saw no duplicates after %d kills", kills)
			}

			// The handler destination: every event handled exactly once.
			ds := waitHandled(t, st, "orders", 60*time.Second)
			if c := ds.Counts; providersim.Live(ds) > 0 || c[store.StatusDone] != int64(l.Stored) {
				t.Errorf("handler deliveries not drained: %v, want %d done", c, l.Stored)
			}
			f := checkEffects(t, db, rep)
			retried := retriedDeliveries(t, st, l.StoredIDs(), "orders")
			// The kills must have hit where exactly once is at stake: while
			// a handler's transaction was open.
			midHandler, cut := killsMidHandler(t, *p.killed, p.logs.String())
			if midHandler == 0 {
				t.Errorf("none of the %d kills landed while a handler's transaction was open", kills)
			}
			logFigures(t, "library-crash", l.Figures, fmt.Sprintf("kills=%d", kills),
				fmt.Sprintf("kills_mid_handler=%d", midHandler), fmt.Sprintf("handlers_cut_short=%d", cut),
				fmt.Sprintf("effects=%d", f.rows), fmt.Sprintf("effect_duplicates=%d", f.duplicates),
				fmt.Sprintf("effect_missing=%d", f.missing), fmt.Sprintf("wrong_amounts=%d", f.wrongAmounts),
				fmt.Sprintf("handled_again=%d", retried),
				fmt.Sprintf("took=%.0fs", time.Since(start).Seconds()))
		})
	}
}

// waitHandled waits until destination has no live delivery, and returns
// its statistics.
func waitHandled(t *testing.T, st store.DB, destination string, within time.Duration) store.DestinationStats {
	t.Helper()
	var ds store.DestinationStats
	testkit.Eventually(t, within, destination+" to have no live delivery", func() error {
		s, err := st.Stats(context.Background(), time.Now())
		if err != nil {
			t.Fatalf("stats: %v", err)
		}
		ds = s.Destinations[destination]
		return testkit.Check(providersim.Live(ds) == 0, "%s: %v", destination, ds.Counts)
	})
	return ds
}

// retriedDeliveries counts the deliveries to destination of the events
// ids that took more than one attempt: those a kill caught in flight,
// whose handler ran again.
func retriedDeliveries(t *testing.T, st store.DB, ids []string, destination string) int {
	t.Helper()
	n := 0
	for _, id := range ids {
		ds, err := st.EventDeliveries(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.Destination == destination && d.Attempts > 1 {
				n++
			}
		}
	}
	return n
}

// effectFigures count what the application's tables hold against the
// acknowledged events.
type effectFigures struct {
	rows, duplicates, missing, unknown, wrongAmounts int
}

// checkEffects reads the application's tables and fails the test unless
// every acknowledged event has exactly one payment row, no row belongs to
// another event, and every order's paid amount is its event's amount.
func checkEffects(t *testing.T, database string, rep providersim.Report) effectFigures {
	t.Helper()
	payments, paid := appState(t, database)
	type want struct {
		order  string
		amount int64
	}
	acked := map[string]want{}
	for _, e := range rep.Events {
		if !e.Acked {
			continue
		}
		var body struct {
			Data struct {
				Object struct {
					ID         string `json:"id"`
					AmountPaid int64  `json:"amount_paid"`
				} `json:"object"`
			} `json:"data"`
		}
		if err := json.Unmarshal(e.Body, &body); err != nil {
			t.Fatalf("event %s: %v", e.ID, err)
		}
		acked[e.ID] = want{body.Data.Object.ID, body.Data.Object.AmountPaid}
	}
	var f effectFigures
	f.rows = len(payments)
	seen := map[string]int{}
	for _, p := range payments {
		seen[p.eventID]++
		if _, ok := acked[p.eventID]; !ok {
			f.unknown++
			t.Errorf("payment of event %s, which was not acknowledged", p.eventID)
		}
	}
	for id, w := range acked {
		switch n := seen[id]; {
		case n == 0:
			f.missing++
			t.Errorf("MISSING: event %s was acknowledged but its payment was never recorded", id)
		case n > 1:
			f.duplicates += n - 1
			t.Errorf("DUPLICATE: event %s's payment was recorded %d times", id, n)
		}
		if paid[w.order] != w.amount {
			f.wrongAmounts++
			t.Errorf("order %s is paid %d, want %d", w.order, paid[w.order], w.amount)
		}
	}
	if f.rows != len(acked) {
		t.Errorf("%d payment rows for %d acknowledged events", f.rows, len(acked))
	}
	return f
}
