package fleet_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/fleet"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storeopen"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// testTTL is the runners' lease in these tests: short, so that a lease
// runs out within the test, long enough that a loaded machine renews it.
const testTTL = 3 * time.Second

// openStore opens and migrates database, as a process of the fleet would,
// and closes it when the test ends.
func openStore(t *testing.T, database string) store.DB {
	t.Helper()
	return storetest.Migrated(t, func(ctx context.Context) (store.DB, error) {
		return storeopen.Open(ctx, database, slog.New(slog.DiscardHandler))
	})
}

// work counts the runners whose task runs now, and the most that ever
// ran at once.
type work struct {
	now, most atomic.Int64
}

// task is a runner's task that counts itself in w while it runs, and
// tells through running whether it runs now.
func (w *work) task(running *atomic.Bool) func(ctx context.Context) {
	return func(ctx context.Context) {
		n := w.now.Add(1)
		for {
			m := w.most.Load()
			if n <= m || w.most.CompareAndSwap(m, n) {
				break
			}
		}
		running.Store(true)
		<-ctx.Done()
		running.Store(false)
		w.now.Add(-1)
	}
}

// node is one process of a test fleet: its runner and whether its task
// runs.
type node struct {
	runner  *fleet.Runner
	running atomic.Bool
}

func startNode(t *testing.T, st store.FleetLeases, name string, w *work) *node {
	t.Helper()
	n := &node{}
	n.runner = fleet.Start(fleet.Options{Leases: st, Node: name, TTL: testTTL, Tasks: []func(context.Context){w.task(&n.running)}})
	t.Cleanup(n.runner.Stop)
	return n
}

// waitLeader waits until exactly one of nodes is the runner, with its task
// running and no other's, and returns it and the nodes standing by.
func waitLeader(t *testing.T, within time.Duration, nodes ...*node) (leader *node, others []*node) {
	t.Helper()
	testkit.Eventually(t, within, "one runner, its task running", func() error {
		leader = nil
		leaders := 0
		for _, n := range nodes {
			if n.runner.Leading() && n.running.Load() {
				leader = n
				leaders++
			} else if n.running.Load() {
				return testkit.Check(false, "%s runs its task without leading", n.runner.Node())
			}
		}
		return testkit.Check(leaders == 1, "%d runners", leaders)
	})
	for _, n := range nodes {
		if n != leader {
			others = append(others, n)
		}
	}
	return leader, others
}

// TestRunnerHandsOverOnStop runs two processes' runners on one database:
// one runs the task, the other stands by; the first stops, releasing its
// lease, and the other takes over at its next try, well before the lease
// would have run out.
func TestRunnerHandsOverOnStop(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			var w work
			a := startNode(t, openStore(t, db), "node-a", &w)
			b := startNode(t, openStore(t, db), "node-b", &w)
			leader, other := waitLeader(t, 10*time.Second, a, b)
			l, err := openStore(t, db).ReadFleetLease(t.Context(), fleet.RunnerLease)
			if err != nil || l.Holder != leader.runner.Node() {
				t.Fatalf("lease = %+v, %v: want it held by %s", l, err, leader.runner.Node())
			}
			leader.runner.Stop()
			if leader.runner.Leading() || leader.running.Load() {
				t.Fatal("a stopped runner still leads or runs its task")
			}
			// The lease is released: the other takes it at its next try,
			// a third of the TTL away, not once the lease would run out.
			waitLeader(t, testTTL, other...)
			if m := w.most.Load(); m != 1 {
				t.Errorf("%d tasks ran at once, want 1", m)
			}
		})
	}
}

// TestRunnerTakesOverFromLostProcess cuts the runner's process off the
// database: it stops its task before its lease runs out, and another
// process takes the lease over once it has, the two tasks never running
// at once.
func TestRunnerTakesOverFromLostProcess(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			var w work
			stores := map[string]store.DB{"node-a": openStore(t, db), "node-b": openStore(t, db)}
			a := startNode(t, stores["node-a"], "node-a", &w)
			b := startNode(t, stores["node-b"], "node-b", &w)
			leader, other := waitLeader(t, 10*time.Second, a, b)
			lost := time.Now()
			if err := stores[leader.runner.Node()].Close(); err != nil {
				t.Fatal(err)
			}
			waitLeader(t, 3*testTTL, other...)
			if took := time.Since(lost); took < testTTL/2 {
				t.Errorf("took over %v after the runner lost its database, before its lease could run out", took)
			}
			if leader.runner.Leading() || leader.running.Load() {
				t.Error("the runner cut off the database still leads")
			}
			if m := w.most.Load(); m != 1 {
				t.Errorf("%d tasks ran at once, want 1", m)
			}
		})
	}
}
