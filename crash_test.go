package hookrelay_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// crashAttempts is the max attempts of the crashloop child's destination.
const crashAttempts = 3

// TestHandlerThatKillsItsProcessGoesDead runs an application whose handler
// exits the process on one poison event, restarting it each time it dies,
// as a supervisor would. Each run finds the attempt the last one lost when
// its lease runs out, and counts it: after crashAttempts crashes the
// poison delivery is dead, with one lost attempt recorded per crash, and
// the application runs on; every other event is handled exactly once,
// those posted before the poison and those posted between the crashes.
func TestHandlerThatKillsItsProcessGoesDead(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, drv testdb.Driver) {
		db := drv.URL(t)
		app := openApp(t, db)
		app.exec(t, `CREATE TABLE effects (event_id text NOT NULL, note text NOT NULL DEFAULT '')`)
		const poison = "evt_poison"
		var others []string
		for i := range 6 {
			others = append(others, fmt.Sprintf("evt_fine_%d", i))
		}
		body := func(id string) []byte {
			return stripeEvent(id, "checkout.session.completed", "ord_"+id, time.Now().Add(-time.Hour))
		}

		var (
			crashes int
			c       *child
		)
		for run := 1; ; run++ {
			if run > crashAttempts+1 {
				t.Fatalf("still running after %d runs: %d crashes, want %d then a run that lasts", run-1, crashes, crashAttempts)
			}
			// A later run may take the poison again, its lease having run
			// out, and crash before it serves: a crash like any other.
			var served bool
			c, served = launchChild(t, "crashloop", db, app, childPoisonEnv+"="+poison)
			var poisoned adminDelivery
			if served {
				// The first run gets two events before the poison and one
				// after it, each later run one more, which it handles
				// before the poison's lease runs out.
				posts := []string{others[0], others[1], poison, others[2]}
				if run > 1 {
					posts = []string{others[run+1]}
				}
				for _, id := range posts {
					if code, err := c.tryPost(body(id)); err == nil && code != http.StatusOK {
						t.Fatalf("post %s: status %d", id, code)
					}
				}
				testkit.Eventually(t, 30*time.Second, "the child to crash or to bury the poison event", func() error {
					if c.exited() {
						return nil
					}
					d, err := c.tryDelivery(poison, "orders")
					if err == nil && d.Status == "dead" {
						poisoned = d
						return nil
					}
					return fmt.Errorf("poison delivery %+v (%v)", d, err)
				})
			}
			if !c.exited() {
				checkPoisonDead(t, poisoned, crashes)
				break
			}
			if c.code != crashExit {
				t.Fatalf("run %d exited %d, want %d (the poison's handler)", run, c.code, crashExit)
			}
			crashes++
		}
		if crashes != crashAttempts {
			t.Errorf("%d crashes, want %d", crashes, crashAttempts)
		}
		// A crash may have cut a post short: post every event again to the
		// run that lasts (each is stored once, a redelivery being a no-op)
		// and wait for them.
		for _, id := range others {
			c.mustPost(t, body(id))
		}
		for _, id := range others {
			if d := c.waitStatus(t, id, "orders", "done"); d.Attempts != 1 {
				t.Errorf("%s: %d attempts, want 1", id, d.Attempts)
			}
		}
		got := app.strings(t, `SELECT event_id FROM effects ORDER BY event_id`)
		if !slices.Equal(got, others) {
			t.Errorf("effects = %v, want each other event once and none of the poison's", got)
		}
	})
}

// checkPoisonDead checks the poison event's delivery once it is dead:
// one lost attempt per crash, each recorded by the run after it.
func checkPoisonDead(t *testing.T, d adminDelivery, crashes int) {
	t.Helper()
	if d.Attempts != crashAttempts || d.LastError != "worker lost: lease expired while the attempt ran" || len(d.AttemptLog) != crashAttempts {
		t.Errorf("poison delivery = %+v after %d crashes, want dead after %d lost attempts", d, crashes, crashAttempts)
	}
	for i, a := range d.AttemptLog {
		if a.Error != d.LastError {
			t.Errorf("attempt %d: error %q, want the lost attempt's", i+1, a.Error)
		}
	}
}
