package reliability

import (
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/providersim"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestCrash kills the relay with SIGKILL at random moments under
// load, several times, and restarts it each time on the same database and
// ports while the provider simulator keeps retrying. Every event answered
// 200 must be stored exactly once, and every stored event must reach the
// destination at least once.
func TestCrash(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			const kills = 4
			rng := seededRand(t)

			db := driver.URL(t)
			// A short hold on each answer keeps a few deliveries in flight
			// at any moment, for the kills to catch.
			dest := newSink(t, 20*time.Millisecond)
			p := startRelay(t, db, dest.URL(), "[100ms, 500ms]")
			sim := startSimulator(t, p.ingestURL(), providersim.Options{
				Concurrency: 8, Rate: 150, MaxAttempts: 1000, Deadline: 2 * time.Minute,
			})

			p, downtime := killRepeatedly(t, p, kills, rng)
			loadFor(t, sim, 200) // the last relay started takes load too
			rep := finishSimulator(t, sim, time.Minute)

			st := openStore(t, db)
			l := checkPromise(t, st, rep, dest, 60*time.Second)
			logFigures(t, "crash", l.Figures, fmt.Sprintf("kills=%d", kills),
				fmt.Sprintf("downtime=%.1fs", downtime.Seconds()),
				fmt.Sprintf("attempts=%d", rep.Attempts()),
				"answers="+statusList(rep.Statuses()))
		})
	}
}
