// Package fleet elects, among the hookrelay processes that share one
// database, the one that runs what must run once per fleet — retention,
// alert evaluation — and hands that work over when the process stops or
// dies.
//
// The election is a lease row in the database (store.FleetLeases), not a
// PostgreSQL advisory lock: a session-level lock lives and dies with one
// connection, which a transaction-pooling proxy does not keep, which an
// application's pool would lend for the process's lifetime, and which
// SQLite does not have; a lease row works through any pooler and on both
// drivers, with one code path. Its cost is a bounded handover: a runner
// that dies holds its lease until the lease runs out (the TTL), where a
// lock would be freed as soon as the server noticed the connection gone.
package fleet

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// RunnerLease is the name of the lease the fleet's runner holds.
const RunnerLease = "runner"

// DefaultTTL is how long a runner's lease lasts unless renewed: a runner
// that dies is replaced within about that long.
const DefaultTTL = 15 * time.Second

// releaseTimeout bounds the release of the lease by a stopping runner.
const releaseTimeout = 5 * time.Second

// Log keys.
const (
	logComponent = "component"
	logNode      = "node"
	logRunner    = "runner"
	logReason    = "reason"
	logError     = "error"
)

// Options configure a Runner.
type Options struct {
	// Leases is where the runner's lease is kept: the fleet's database.
	Leases store.FleetLeases
	// Node names this process, uniquely in the fleet (see NodeName).
	Node string
	// TTL is how long the lease lasts unless renewed (default
	// DefaultTTL). The runner renews it every third of it.
	TTL time.Duration
	// Tasks run, each in a goroutine of its own, while this process is the
	// fleet's runner; their context is cancelled when it stops being the
	// runner, and they return soon after.
	Tasks []func(ctx context.Context)
	// Logger receives a line when this process becomes the runner, stops
	// being it, or sees another become it; nil discards them.
	Logger *slog.Logger
}

// Runner takes part in the election of the fleet's runner and, while this
// process holds the runner's lease, runs the tasks.
//
// A runner that cannot renew its lease stops its tasks before any other
// process may take the lease: it counts the lease's life from before its
// claim was sent, which is no later than the database counts it from, and
// stops a sixth of the TTL before that ends. Its tasks must still be safe
// to run twice at once for a moment (a stalled process that wakes up late):
// retention's batches are, and an alert is marked in the database before
// it is raised (store.FleetAlerts.MarkAlert).
type Runner struct {
	opts    Options
	logger  *slog.Logger
	leading atomic.Bool

	cancel context.CancelFunc
	done   chan struct{}

	// Set and read by Start's first claim, then by run alone.
	stopTasks func()    // cancels the running tasks and waits for them; nil when not leading
	deadline  time.Time // when this process stops counting on its lease
	failing   bool      // the last claim failed
	runner    string    // the holder last seen
}

// NodeName returns a name for this process that no other process of a
// fleet has: its host name, its pid and a random suffix, as a restarted
// container may have the same host name and pid as the one it replaces.
func NodeName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), rand.Text()[:6])
}

// Start takes part in the election: it makes the first claim, so that
// Leading says at once whether this process is the runner, then goes on in
// the background. Call Stop to stop the tasks and release the lease.
func Start(o Options) *Runner {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{
		opts:   o,
		logger: logger.With(logComponent, "fleet", logNode, o.Node),
		cancel: cancel,
		done:   make(chan struct{}),
	}
	go r.run(ctx, r.claim(ctx))
	return r
}

// Leading tells whether this process is the fleet's runner now.
func (r *Runner) Leading() bool { return r.leading.Load() }

// Node is the name this process takes part in the election under.
func (r *Runner) Node() string { return r.opts.Node }

// Stop stops the tasks, waits for them to return and, when this process
// was the runner, releases the lease so that another process takes it at
// its next try rather than once it runs out. It is safe to call more than
// once.
func (r *Runner) Stop() {
	r.cancel()
	<-r.done
}

// run claims the lease every third of the TTL, starting after first, until
// ctx is done. A process that does not hold it tries again when the
// holder's lease would run out, if that is sooner.
func (r *Runner) run(ctx context.Context, first time.Duration) {
	defer close(r.done)
	timer := time.NewTimer(first)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			r.release()
			return
		case <-timer.C:
		}
		timer.Reset(r.claim(ctx))
	}
}

// claim makes one claim of the lease, steps up or down as it says, and
// returns how long to wait for the next.
func (r *Runner) claim(ctx context.Context) time.Duration {
	ttl := r.opts.TTL
	renew, margin := ttl/3, ttl/6
	if r.stopTasks != nil && !time.Now().Before(r.deadline) {
		r.stepDown("the lease could not be renewed in time")
	}
	wait := renew
	if r.stopTasks != nil {
		wait = min(wait, time.Until(r.deadline))
	}
	sent := time.Now()
	claimCtx, cancel := context.WithTimeout(ctx, max(wait, time.Millisecond))
	l, err := r.opts.Leases.ClaimFleetLease(claimCtx, RunnerLease, r.opts.Node, ttl)
	cancel()
	switch {
	case ctx.Err() != nil:
		return 0
	case err != nil:
		if !r.failing {
			r.logger.Warn("fleet runner lease not claimed", logError, err)
		}
		r.failing = true
		if r.stopTasks != nil {
			return max(min(renew, time.Until(r.deadline)), 0)
		}
		return renew
	case l.HeldBy(r.opts.Node):
		r.failing = false
		r.deadline = sent.Add(ttl - margin)
		if r.stopTasks == nil {
			r.stepUp(l)
		}
		return renew
	default:
		r.failing = false
		if r.stopTasks != nil {
			r.stepDown("another process holds the lease")
		}
		if l.Holder != r.runner {
			r.runner = l.Holder
			r.logger.Info("fleet runner is another process", logRunner, l.Holder)
		}
		// Try again as the holder's lease runs out, if it does before
		// the next regular try.
		return min(renew, max(l.Until.Sub(l.Now)+10*time.Millisecond, 50*time.Millisecond))
	}
}

// stepUp starts the tasks: this process holds the lease l.
func (r *Runner) stepUp(l store.FleetLease) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, task := range r.opts.Tasks {
		wg.Go(func() { task(ctx) })
	}
	r.stopTasks = func() {
		cancel()
		wg.Wait()
	}
	r.runner = r.opts.Node
	r.leading.Store(true)
	r.logger.Info("fleet runner is this process", logRunner, r.opts.Node, "lease_until", l.Until)
}

// stepDown stops the tasks and waits for them: this process no longer
// holds the lease, or can no longer count on it.
func (r *Runner) stepDown(reason string) {
	r.leading.Store(false)
	r.stopTasks()
	r.stopTasks = nil
	r.logger.Warn("fleet runner is no longer this process", logReason, reason)
}

// release stops the tasks, when this process is the runner, and releases
// the lease.
func (r *Runner) release() {
	if r.stopTasks == nil {
		return
	}
	r.leading.Store(false)
	r.stopTasks()
	r.stopTasks = nil
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := r.opts.Leases.ReleaseFleetLease(ctx, RunnerLease, r.opts.Node); err != nil {
		r.logger.Warn("fleet runner lease not released: another process takes it once it runs out", logError, err)
		return
	}
	r.logger.Info("fleet runner lease released: another process takes it over")
}
