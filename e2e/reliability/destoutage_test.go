package reliability

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/providersim"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestDestinationOutage takes the destination down — every connection
// refused — for a few seconds under a steady load, then brings it back. The backlog
// must drain, each delivery's attempts must follow the destination's
// backoff schedule, and nothing may go dead.
func TestDestinationOutage(t *testing.T) {
	t.Parallel()
	backoff := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}
	const outage = 3 * time.Second
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			dest := newSink(t, 0)
			p := startRelay(t, db, dest.URL(), "[200ms, 400ms]")
			sim := startSimulator(t, p.ingestURL(), providersim.Options{
				Concurrency: 8, Rate: 25, MaxAttempts: 1000, Deadline: 2 * time.Minute,
			})
			loadFor(t, sim, 25) // deliveries flow before the outage
			dest.Down()
			downAt := time.Now()
			time.Sleep(outage) // the outage under test: retries meet refused connections this long
			upAt := time.Now() // it answers from some moment in Up, which a loaded machine may stretch
			if err := dest.Up(); err != nil {
				t.Fatal(err)
			}
			loadFor(t, sim, 25) // and after it
			rep := finishSimulator(t, sim, time.Minute)

			st := openStore(t, db)
			l := checkPromise(t, st, rep, dest, 30*time.Second)
			sched := checkSchedule(t, st, l.StoredIDs(), backoff, upAt)
			if sched.retried == 0 {
				t.Error("no delivery was retried: the outage caught nothing")
			}
			logFigures(t, "destination-outage", l.Figures,
				fmt.Sprintf("outage=%.1fs", upAt.Sub(downAt).Seconds()),
				fmt.Sprintf("retried_deliveries=%d", sched.retried),
				fmt.Sprintf("failed_attempts=%d", sched.failed),
				fmt.Sprintf("retry_gaps=%d", sched.gaps),
				fmt.Sprintf("earliest_retry=%+dms", sched.early.Milliseconds()),
				fmt.Sprintf("latest_retry=%+dms", sched.late.Milliseconds()))
		})
	}
}

// schedule is what checkSchedule found.
type schedule struct {
	retried, failed, gaps int
	// early and late are the extreme distances of a retry from the
	// window its backoff step allows: how much sooner than the step less
	// its jitter (negative is within), and how much later than the step
	// plus its jitter.
	early, late time.Duration
}

// maxLateRetry is how late a retry may start after its backoff step and
// jitter: the engine claims a due delivery within its poll interval, plus
// room for a loaded machine.
const maxLateRetry = delivery.DefaultPollInterval + time.Second

// checkSchedule reads every delivery's attempts and checks that each retry
// waited its backoff step (within the jitter) after the attempt before it
// ended, never less and not much more; that every failed attempt was a
// refused connection; and that each delivery ended with a 200 after up.
func checkSchedule(t *testing.T, st store.DB, ids []string, backoff []time.Duration, up time.Time) schedule {
	t.Helper()
	ctx := context.Background()
	s := schedule{early: -time.Hour, late: -time.Hour}
	for _, id := range ids {
		ds, err := st.EventDeliveries(ctx, id)
		if err != nil || len(ds) != 1 {
			t.Fatalf("deliveries of %s: %v, %v", id, ds, err)
		}
		as, err := st.DeliveryAttempts(ctx, ds[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) == 0 || len(as) != ds[0].Attempts {
			t.Errorf("delivery %d: %d attempts recorded, %d counted", ds[0].ID, len(as), ds[0].Attempts)
			continue
		}
		if last := as[len(as)-1]; last.StatusCode != http.StatusOK {
			t.Errorf("delivery %d: last attempt %d %q, want 200", ds[0].ID, last.StatusCode, last.Error)
		}
		if len(as) == 1 {
			continue
		}
		s.retried++
		if last := as[len(as)-1]; last.AttemptedAt.Before(up.Add(-50 * time.Millisecond)) {
			t.Errorf("delivery %d succeeded at %v, before the destination came back", ds[0].ID, last.AttemptedAt)
		}
		for i := 1; i < len(as); i++ {
			prev := as[i-1]
			if prev.StatusCode != 0 || prev.Error == "" {
				t.Errorf("delivery %d attempt %d failed with %d %q, want a refused connection", ds[0].ID, i, prev.StatusCode, prev.Error)
			}
			s.failed++
			s.gaps++
			step := backoff[min(i, len(backoff))-1]
			wait := as[i].AttemptedAt.Sub(prev.AttemptedAt.Add(prev.Duration))
			lo := step - time.Duration(float64(step)*delivery.DefaultJitter)
			hi := step + time.Duration(float64(step)*delivery.DefaultJitter)
			s.early = max(s.early, lo-wait)
			s.late = max(s.late, wait-hi)
			// Times are stored to the microsecond; allow a millisecond.
			if wait < lo-time.Millisecond {
				t.Errorf("delivery %d attempt %d came %v after attempt %d ended; its backoff allows no less than %v",
					ds[0].ID, i+1, wait, i, lo)
			}
			if wait > hi+maxLateRetry {
				t.Errorf("delivery %d attempt %d came %v after attempt %d ended; its backoff step is %v",
					ds[0].ID, i+1, wait, i, step)
			}
		}
	}
	return s
}
