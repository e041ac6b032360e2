package adminapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

var (
	// errJobCancelled is what stops a cancelled job's walk between two
	// batches.
	errJobCancelled = errors.New("the job was cancelled")
	// errShuttingDown refuses a job asked for while the relay stops.
	errShuttingDown = &requestError{http.StatusServiceUnavailable, "the relay is shutting down: no job starts"}
)

// jobPoll is how often WaitJob reads a job that another node runs.
const jobPoll = 200 * time.Millisecond

// Jobs runs the replay and backfill jobs of one process, and keeps every
// job in the database (store.Jobs), so that each node of a fleet shows
// them with their progress and can ask any of them to stop: the node that
// runs a job reads, after each batch, whether someone asked. It outlives
// the Service of one config, so that a reload neither loses a job nor
// stops it. A Jobs is safe for concurrent use.
type Jobs struct {
	store  store.Jobs
	node   string
	logger *slog.Logger

	mu      sync.Mutex
	running map[string]*job // guarded by mu; the jobs this process runs
	closed  bool            // guarded by mu
	wg      sync.WaitGroup
}

// NewJobs returns the jobs of the process named node (see store.Node),
// kept in st.
func NewJobs(st store.Jobs, node string, logger *slog.Logger) *Jobs {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Jobs{store: st, node: node, logger: logger, running: map[string]*job{}}
}

// Close cancels the running jobs, each stopping between two batches and
// keeping what it did, and waits for them. It is safe to call more than
// once; a job started after it is refused.
func (js *Jobs) Close() {
	js.mu.Lock()
	js.closed = true
	for _, j := range js.running {
		j.cancel()
	}
	js.mu.Unlock()
	js.wg.Wait()
}

// job is one job this process runs: its record and what cancels it.
type job struct {
	js     *Jobs
	ctx    context.Context // done when the job is cancelled
	cancel context.CancelFunc
	done   chan struct{} // closed once the job has ended

	mu  sync.Mutex
	rec store.JobRecord // guarded by mu
}

// newJobID returns a job id that begins with the time, so that ids sort
// as jobs started.
func newJobID(now time.Time) string {
	buf := make([]byte, 4)
	_, _ = rand.Read(buf)
	return fmt.Sprintf("job_%012x%s", now.UnixMilli(), hex.EncodeToString(buf))
}

// start records a job of kind for actor and runs work in the background.
// work counts first (state "counting"), then walks (state "running"),
// telling the job its progress.
func (js *Jobs) start(ctx context.Context, kind, actor string, now time.Time, work func(*job) error) (adminwire.Job, error) {
	jctx, cancel := context.WithCancel(context.Background())
	j := &job{js: js, ctx: jctx, cancel: cancel, done: make(chan struct{}), rec: store.JobRecord{
		ID: newJobID(now), Kind: kind, Actor: actor, State: adminwire.JobCounting, Node: js.node, StartedAt: now,
	}}
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.closed {
		cancel()
		return adminwire.Job{}, errShuttingDown
	}
	if err := js.store.CreateJob(ctx, j.rec); err != nil {
		cancel()
		return adminwire.Job{}, err
	}
	js.running[j.rec.ID] = j
	js.wg.Add(1)
	go func() {
		defer js.wg.Done()
		defer cancel()
		j.finish(work(j))
		js.mu.Lock()
		delete(js.running, j.rec.ID)
		js.mu.Unlock()
	}()
	return viewOf(j.record(), now), nil
}

// local returns the job with id when this process runs it.
func (js *Jobs) local(id string) (*job, bool) {
	js.mu.Lock()
	defer js.mu.Unlock()
	j, ok := js.running[id]
	return j, ok
}

// get returns the job with id, whichever node runs it.
func (js *Jobs) get(ctx context.Context, id string) (store.JobRecord, error) {
	rec, err := js.store.GetJob(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return rec, errNoJob(id)
	}
	return rec, err
}

// list returns the jobs of every node, newest first.
func (js *Jobs) list(ctx context.Context, now time.Time) ([]adminwire.Job, error) {
	recs, err := js.store.ListJobs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]adminwire.Job, len(recs))
	for i, rec := range recs {
		out[i] = viewOf(rec, now)
	}
	return out, nil
}

// record returns a copy of the job's record.
func (j *job) record() store.JobRecord {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rec
}

// save writes the job's record, and cancels the job when someone asked
// it to stop, through whichever node.
func (j *job) save(ctx context.Context) {
	rec := j.record()
	by, err := j.js.store.SaveJob(ctx, rec)
	if err != nil {
		j.js.logger.Warn("save job progress", "job", rec.ID, "error", err)
		return
	}
	if by != "" {
		j.mu.Lock()
		j.rec.CancelledBy = by
		j.mu.Unlock()
		j.cancel()
	}
}

// counted ends the count: the job now walks total items.
func (j *job) counted(total int64, now time.Time) {
	j.mu.Lock()
	j.rec.Total, j.rec.State, j.rec.RunningAt = total, adminwire.JobRunning, now
	j.mu.Unlock()
	j.save(j.ctx)
}

// progressed records what the walk did so far; it returns errJobCancelled
// once the job is cancelled, here or through another node, which stops
// the walk there.
func (j *job) progressed(update func(*adminwire.Job)) error {
	j.mu.Lock()
	v := viewOf(j.rec, time.Time{})
	update(&v)
	j.rec.Done, j.rec.LastEventID, j.rec.Result = v.Done, v.LastEventID, resultOf(v)
	j.mu.Unlock()
	j.save(context.WithoutCancel(j.ctx))
	if j.ctx.Err() != nil {
		return errJobCancelled
	}
	return nil
}

// finish records how the job ended, and tells those waiting for it.
func (j *job) finish(err error) {
	defer close(j.done)
	j.mu.Lock()
	j.rec.FinishedAt = time.Now().UTC()
	switch {
	case err == nil:
		j.rec.State = adminwire.JobDone
	case errors.Is(err, errJobCancelled) || j.ctx.Err() != nil:
		j.rec.State = adminwire.JobCancelled
	default:
		j.rec.State, j.rec.Error = adminwire.JobFailed, err.Error()
	}
	j.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	j.save(ctx)
}

// resultOf encodes what a job did so far, as its record keeps it.
func resultOf(v adminwire.Job) []byte {
	var (
		b   []byte
		err error
	)
	switch {
	case v.Replay != nil:
		b, err = json.Marshal(v.Replay)
	case v.Backfill != nil:
		b, err = json.Marshal(v.Backfill)
	}
	if err != nil {
		return nil
	}
	return b
}

// viewOf returns a job's record as the API shows it at now (the zero time
// leaves out its rate and time left): with what it did, its rate and the
// time it has left.
func viewOf(rec store.JobRecord, now time.Time) adminwire.Job {
	v := adminwire.Job{
		ID: rec.ID, Kind: rec.Kind, State: rec.State, Actor: rec.Actor, Total: rec.Total, Done: rec.Done,
		LastEventID: rec.LastEventID, Error: rec.Error, StartedAt: rec.StartedAt, Node: rec.Node, CancelledBy: rec.CancelledBy,
	}
	if len(rec.Result) > 0 {
		switch rec.Kind {
		case adminwire.JobReplay:
			var r adminwire.ReplayResult
			if json.Unmarshal(rec.Result, &r) == nil {
				v.Replay = &r
			}
		case adminwire.JobBackfill:
			var b adminwire.BackfillResult
			if json.Unmarshal(rec.Result, &b) == nil {
				v.Backfill = &b
			}
		}
	}
	end := now
	if !rec.FinishedAt.IsZero() {
		f := rec.FinishedAt
		v.FinishedAt, end = &f, f
	}
	if now.IsZero() || rec.RunningAt.IsZero() {
		return v
	}
	if secs := end.Sub(rec.RunningAt).Seconds(); secs > 0 {
		v.RatePerSecond = roundMS(float64(v.Done) / secs)
	}
	if v.FinishedAt == nil && v.State == adminwire.JobRunning && v.RatePerSecond > 0 && v.Total > v.Done {
		eta := roundMS(float64(v.Total-v.Done) / v.RatePerSecond)
		v.ETASeconds = &eta
	}
	return v
}
