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
	"github.com/hookrelay/hookrelay/internal/fleet"
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
// runs a job reads, after each batch, whether someone asked. A job is its
// node's while its lease lasts; once Start has run, Jobs takes over the
// jobs of nodes that died (see jobs_takeover.go). It outlives the Service
// of one config, so that a reload neither loses a job nor stops it. A Jobs
// is safe for concurrent use.
type Jobs struct {
	store  store.Jobs
	node   string
	lease  time.Duration
	logger *slog.Logger
	// life ends only when a test takes the process for dead (Abandon, in
	// export_test.go): its jobs then stop where they are, as a SIGKILL
	// would stop them, and write nothing more.
	life context.Context
	kill context.CancelFunc

	mu        sync.Mutex
	running   map[string]*job    // guarded by mu; the jobs this process runs
	closed    bool               // guarded by mu
	svc       *Service           // guarded by mu; the newest Service, which runs the jobs taken over
	stopSweep context.CancelFunc // guarded by mu; nil until Start
	wg        sync.WaitGroup
}

// NewJobs returns the jobs of the process named node (see store.Node),
// kept in st. lease is how long a job stays this node's unless renewed
// (fleet.runner_lease; 0 means fleet.DefaultTTL): a job whose node dies is
// taken over by another within about that long.
func NewJobs(st store.Jobs, node string, lease time.Duration, logger *slog.Logger) *Jobs {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if lease <= 0 {
		lease = fleet.DefaultTTL
	}
	life, kill := context.WithCancel(context.Background())
	return &Jobs{store: st, node: node, lease: lease, logger: logger.With("component", "jobs"), life: life, kill: kill, running: map[string]*job{}}
}

// Close stops taking over jobs, cancels the running jobs, each stopping
// between two batches and keeping what it did, and waits for them. It is
// safe to call more than once; a job started after it is refused.
func (js *Jobs) Close() {
	js.mu.Lock()
	js.closed = true
	if js.stopSweep != nil {
		js.stopSweep()
	}
	for _, j := range js.running {
		j.cancel()
	}
	js.mu.Unlock()
	js.wg.Wait()
}

// use makes svc the service that runs the jobs this process takes over:
// the newest, built for the running config.
func (js *Jobs) use(svc *Service) {
	js.mu.Lock()
	js.svc = svc
	js.mu.Unlock()
}

// job is one job this process runs: its record and what cancels it.
type job struct {
	js     *Jobs
	ctx    context.Context // done when the job is cancelled
	cancel context.CancelFunc
	done   chan struct{} // closed once the job has ended here

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

// start records a job of kind for actor, which does what request says,
// and has svc run it in the background.
func (js *Jobs) start(ctx context.Context, svc *Service, kind, actor string, now time.Time, request adminwire.JobRequest) (adminwire.Job, error) {
	req, err := json.Marshal(request)
	if err != nil {
		return adminwire.Job{}, fmt.Errorf("encode the job's request: %w", err)
	}
	rec := store.JobRecord{
		ID: newJobID(now), Kind: kind, Actor: actor, State: adminwire.JobCounting, Node: js.node, Request: req, StartedAt: now,
	}
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.closed {
		return adminwire.Job{}, errShuttingDown
	}
	if err := js.store.CreateJob(ctx, rec, js.lease); err != nil {
		return adminwire.Job{}, err
	}
	j := js.run(svc, rec)
	return viewOf(j.record(), now), nil
}

// run has svc run the job rec in the background: it counts first (state
// "counting", unless it counted before being taken over), then walks
// (state "running"), renewing the job's lease until it ends. Its caller
// holds js.mu, and has checked that js is not closed.
func (js *Jobs) run(svc *Service, rec store.JobRecord) *job {
	jctx, cancel := context.WithCancel(js.life)
	j := &job{js: js, ctx: jctx, cancel: cancel, done: make(chan struct{}), rec: rec}
	js.running[rec.ID] = j
	js.wg.Add(1)
	go func() {
		defer js.wg.Done()
		defer cancel()
		stop := make(chan struct{})
		go j.keepLease(stop)
		err := svc.runJob(j)
		close(stop)
		if j.finish(err) {
			svc.logJob(j, err)
		}
		js.mu.Lock()
		delete(js.running, rec.ID)
		js.mu.Unlock()
	}()
	return j
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

// tie ties the batches of the job's walk to the job (see store.JobTie).
func (j *job) tie() store.JobTie {
	rec := j.record()
	return store.JobTie{ID: rec.ID, Node: rec.Node, Lease: j.js.lease}
}

// walkContext is the context of the job's walk: the walk is not
// cancelled in the middle of a batch but between two (see progressed), so
// that what it reports is what it did; only the process's death stops it
// where it is.
func (j *job) walkContext() context.Context { return j.js.life }

// save writes the job's state, and cancels the job when someone asked it
// to stop, through whichever node. It fails with store.ErrJobTaken when
// another node took the job over; other failures are logged, and the job
// goes on.
func (j *job) save(ctx context.Context) error {
	rec := j.record()
	by, err := j.js.store.SaveJob(ctx, rec, j.js.lease)
	if errors.Is(err, store.ErrJobTaken) {
		return err
	} else if err != nil {
		j.js.logger.Warn("save job", "job", rec.ID, "error", err)
		return nil
	}
	if by != "" {
		j.mu.Lock()
		j.rec.CancelledBy = by
		j.mu.Unlock()
		j.cancel()
	}
	return nil
}

// counted ends the count: the job now walks total items. It fails with
// store.ErrJobTaken when another node took the job over meanwhile.
func (j *job) counted(total int64, now time.Time) error {
	j.mu.Lock()
	j.rec.Total, j.rec.State, j.rec.RunningAt = total, adminwire.JobRunning, now
	j.mu.Unlock()
	return j.save(j.ctx)
}

// progressed records, here, what the walk did so far (each batch wrote
// it to the job as it committed); it returns errJobCancelled once the job
// is cancelled through this process, which stops the walk there.
func (j *job) progressed(update func(*adminwire.Job)) error {
	j.mu.Lock()
	v := viewOf(j.rec, time.Time{})
	update(&v)
	j.rec.Done, j.rec.LastEventID, j.rec.Result = v.Done, v.LastEventID, resultOf(v)
	j.mu.Unlock()
	if j.ctx.Err() != nil {
		return errJobCancelled
	}
	return nil
}

// finish records how the job ended, and tells those waiting for it here;
// it reports whether the job ended here. A job another node took over
// goes on there, and one whose process is taken for dead writes nothing.
func (j *job) finish(err error) bool {
	defer close(j.done)
	id := j.record().ID
	switch {
	case j.js.life.Err() != nil:
		return false
	case errors.Is(err, store.ErrJobTaken):
		j.js.logger.Warn("job taken over by another node: it goes on there", "job", id)
		return false
	}
	j.mu.Lock()
	j.rec.FinishedAt = time.Now().UTC()
	switch {
	case err == nil:
		j.rec.State = adminwire.JobDone
	case errors.Is(err, errJobCancelled) || errors.Is(err, store.ErrJobCancelled) || j.ctx.Err() != nil:
		j.rec.State = adminwire.JobCancelled
	default:
		j.rec.State, j.rec.Error = adminwire.JobFailed, err.Error()
	}
	j.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := j.save(ctx); err != nil {
		j.js.logger.Warn("job taken over by another node as it ended: it ends there", "job", id)
		return false
	}
	return true
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
		TakenOverFrom: rec.TakenOverFrom,
	}
	if len(rec.Request) > 0 {
		var req adminwire.JobRequest
		if json.Unmarshal(rec.Request, &req) == nil {
			v.Request = &req
		}
	}
	if rec.FinishedAt.IsZero() && !rec.LeaseUntil.IsZero() {
		l := rec.LeaseUntil
		v.LeaseUntil = &l
	}
	// Each batch of the walk writes the result so far: a job that ended
	// without one walked nothing, and did nothing.
	if len(rec.Result) > 0 || !rec.FinishedAt.IsZero() {
		switch rec.Kind {
		case adminwire.JobReplay:
			var r adminwire.ReplayResult
			if len(rec.Result) == 0 || json.Unmarshal(rec.Result, &r) == nil {
				v.Replay = &r
			}
		case adminwire.JobBackfill:
			var b adminwire.BackfillResult
			if len(rec.Result) == 0 || json.Unmarshal(rec.Result, &b) == nil {
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
