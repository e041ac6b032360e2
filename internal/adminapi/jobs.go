package adminapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// keepJobs is how many finished jobs a process remembers for GET
// /api/v1/jobs/{id}; the oldest finished one is forgotten first.
const keepJobs = 100

var (
	// errJobCancelled is what stops a cancelled job's walk between two
	// batches.
	errJobCancelled = errors.New("the job was cancelled")
	// errShuttingDown refuses a job asked for while the relay stops.
	errShuttingDown = &requestError{http.StatusServiceUnavailable, "the relay is shutting down: no job starts"}
)

// Jobs holds the replay and backfill jobs of one process: what runs in the
// background, and the jobs that finished lately. It outlives the Service
// of one config, so that a reload neither loses a job nor stops it. Jobs
// live in memory: a job's progress is asked of the process that runs it.
// A Jobs is safe for concurrent use.
type Jobs struct {
	mu     sync.Mutex
	byID   map[string]*job // guarded by mu
	order  []string        // guarded by mu; ids, oldest first
	closed bool            // guarded by mu
	wg     sync.WaitGroup
}

// NewJobs returns an empty set of jobs.
func NewJobs() *Jobs { return &Jobs{byID: map[string]*job{}} }

// Close cancels the running jobs, each stopping between two batches and
// keeping what it did, and waits for them. It is safe to call more than
// once; a job started after it is refused.
func (js *Jobs) Close() {
	js.mu.Lock()
	js.closed = true
	for _, j := range js.byID {
		j.cancel()
	}
	js.mu.Unlock()
	js.wg.Wait()
}

// job is one job: its view and what cancels it.
type job struct {
	ctx    context.Context // done when the job is cancelled
	cancel context.CancelFunc
	done   chan struct{} // closed once the job has ended

	mu      sync.Mutex
	view    adminwire.Job // guarded by mu
	running time.Time     // guarded by mu; when the walk started, after the count
}

// start registers a job of kind for actor and runs work in the
// background. work counts first (state "counting"), then walks (state
// "running"), telling the job its progress.
func (js *Jobs) start(kind, actor string, now time.Time, work func(*job) error) (adminwire.Job, error) {
	buf := make([]byte, 8)
	_, _ = rand.Read(buf)
	ctx, cancel := context.WithCancel(context.Background())
	j := &job{ctx: ctx, cancel: cancel, done: make(chan struct{}), view: adminwire.Job{
		ID: "job_" + hex.EncodeToString(buf), Kind: kind, Actor: actor, State: adminwire.JobCounting, StartedAt: now,
	}}
	js.mu.Lock()
	if js.closed {
		js.mu.Unlock()
		cancel()
		return adminwire.Job{}, errShuttingDown
	}
	js.byID[j.view.ID] = j
	js.order = append(js.order, j.view.ID)
	js.forget()
	js.wg.Add(1)
	js.mu.Unlock()

	go func() {
		defer js.wg.Done()
		defer cancel()
		j.finish(work(j))
	}()
	return j.snapshot(now), nil
}

// forget drops the oldest finished jobs beyond keepJobs. js.mu is held.
func (js *Jobs) forget() {
	for i := 0; len(js.order) > keepJobs && i < len(js.order); {
		id := js.order[i]
		if !js.byID[id].finished() {
			i++
			continue
		}
		delete(js.byID, id)
		js.order = slices.Delete(js.order, i, i+1)
	}
}

// get returns the job with id.
func (js *Jobs) get(id string) (*job, bool) {
	js.mu.Lock()
	defer js.mu.Unlock()
	j, ok := js.byID[id]
	return j, ok
}

// list returns every job remembered, newest first.
func (js *Jobs) list(now time.Time) []adminwire.Job {
	js.mu.Lock()
	jobs := make([]*job, 0, len(js.order))
	for _, id := range slices.Backward(js.order) {
		jobs = append(jobs, js.byID[id])
	}
	js.mu.Unlock()
	out := make([]adminwire.Job, len(jobs))
	for i, j := range jobs {
		out[i] = j.snapshot(now)
	}
	return out
}

// counted ends the count: the job now walks total items.
func (j *job) counted(total int64, now time.Time) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.view.Total, j.view.State, j.running = total, adminwire.JobRunning, now
}

// progressed records what the walk did so far; it returns errJobCancelled
// once the job is cancelled, which stops the walk there.
func (j *job) progressed(update func(*adminwire.Job)) error {
	j.mu.Lock()
	update(&j.view)
	j.mu.Unlock()
	if j.ctx.Err() != nil {
		return errJobCancelled
	}
	return nil
}

// finish records how the job ended, and tells those waiting for it.
func (j *job) finish(err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	defer close(j.done)
	now := time.Now().UTC()
	j.view.FinishedAt = &now
	switch {
	case err == nil:
		j.view.State = adminwire.JobDone
	case errors.Is(err, errJobCancelled) || j.ctx.Err() != nil:
		j.view.State = adminwire.JobCancelled
	default:
		j.view.State, j.view.Error = adminwire.JobFailed, err.Error()
	}
}

// finished reports whether the job has ended.
func (j *job) finished() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.view.FinishedAt != nil
}

// snapshot returns the job's view at now, with its rate and the time it
// has left.
func (j *job) snapshot(now time.Time) adminwire.Job {
	j.mu.Lock()
	defer j.mu.Unlock()
	v := j.view
	if v.Replay != nil {
		r := *v.Replay
		v.Replay = &r
	}
	if v.Backfill != nil {
		b := *v.Backfill
		v.Backfill = &b
	}
	end := now
	if v.FinishedAt != nil {
		end = *v.FinishedAt
	}
	if !j.running.IsZero() {
		if secs := end.Sub(j.running).Seconds(); secs > 0 {
			v.RatePerSecond = roundMS(float64(v.Done) / secs)
		}
	}
	if v.FinishedAt == nil && v.State == adminwire.JobRunning && v.RatePerSecond > 0 && v.Total > v.Done {
		eta := roundMS(float64(v.Total-v.Done) / v.RatePerSecond)
		v.ETASeconds = &eta
	}
	return v
}
