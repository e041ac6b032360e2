package adminwire

import "time"

// Job states.
const (
	// JobCounting: the job counts what it will walk, for its total.
	JobCounting = "counting"
	// JobRunning: the job walks its selection, batch by batch.
	JobRunning = "running"
	// JobDone: the job walked all of it.
	JobDone = "done"
	// JobCancelled: the job was cancelled and stopped between two
	// batches; what it did before stays done, and is what it reports.
	JobCancelled = "cancelled"
	// JobFailed: the job stopped on an error, reported in Error; what it
	// did before stays done.
	JobFailed = "failed"
)

// Job kinds.
const (
	JobReplay   = "replay"
	JobBackfill = "backfill"
)

// JobReplayRequest is the body of POST /api/v1/jobs/replay: a replay's,
// with the size of its batches.
type JobReplayRequest struct {
	ReplayRequest
	// MaxBatch, when set, bounds the deliveries one transaction re-arms
	// (below the store's own batch): smaller is gentler on ingest and
	// moves the progress in finer steps.
	MaxBatch int `json:"max_batch"`
}

// Job is a replay or a backfill run in the background, as GET
// /api/v1/jobs/{id} answers it.
type Job struct {
	ID string `json:"id"`
	// Kind is "replay" or "backfill".
	Kind string `json:"kind"`
	// State is counting, running, done, cancelled or failed.
	State string `json:"state"`
	// Actor is the name of the token that started the job.
	Actor string `json:"actor"`
	// Total is what the count found: the deliveries a replay matches, or
	// those a backfill would create. Done is how many of them the walk
	// has passed so far; new events of the window can make it end above
	// Total.
	Total int64 `json:"total"`
	Done  int64 `json:"done"`
	// RatePerSecond is Done per second since the walk started; ETASeconds
	// the time left at that rate, null when unknown or finished.
	RatePerSecond float64  `json:"rate_per_second"`
	ETASeconds    *float64 `json:"eta_seconds"`
	// LastEventID tells exactly what was done so far: the walk goes in
	// event id order, so every selected delivery of an event up to this
	// id, and none after it, has been walked. Empty before the first
	// batch.
	LastEventID string `json:"last_event_id"`
	// Replay or Backfill is what the job did so far, as the synchronous
	// route answers it.
	Replay   *ReplayResult   `json:"replay,omitempty"`
	Backfill *BackfillResult `json:"backfill,omitempty"`
	// Error says why a failed job stopped.
	Error      string     `json:"error,omitempty"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
	// Node is the relay process that runs the job, or that ended it (see
	// GET /api/v1/stats' nodes): every node shows it and can cancel it.
	Node string `json:"node,omitempty"`
	// TakenOverFrom names the node that ran the job before Node took it
	// over, that node having stopped renewing the job's lease (it died);
	// absent when no node did.
	TakenOverFrom string `json:"taken_over_from,omitempty"`
	// LeaseUntil is, while the job has not ended, when it stops being
	// Node's unless Node renews it, which it does every third of
	// fleet.runner_lease while it runs: a job whose lease has run out is
	// taken over by another node. Absent once the job has ended.
	LeaseUntil *time.Time `json:"lease_until,omitempty"`
	// CancelledBy names who asked the job to stop, through any node.
	CancelledBy string `json:"cancelled_by,omitempty"`
	// Request is what the job does; absent for a job started by a
	// version that did not keep it.
	Request *JobRequest `json:"request,omitempty"`
}

// JobRequest is what a job does, as the node that started it resolved
// the request (names checked, times made absolute) and as the job keeps
// it, so that a node that takes the job over walks the same selection: a
// replay's filter and MaxBatch, or a backfill's Destination, Since and
// Until.
type JobRequest struct {
	IDs         []string  `json:"ids,omitempty"`
	Source      string    `json:"source,omitempty"`
	Type        string    `json:"type,omitempty"`
	Destination string    `json:"destination,omitempty"`
	Status      string    `json:"status,omitempty"`
	Since       time.Time `json:"since,omitzero"`
	Until       time.Time `json:"until,omitzero"`
	MaxBatch    int       `json:"max_batch,omitempty"`
}

// JobList is the answer of GET /api/v1/jobs.
type JobList struct {
	Jobs []Job `json:"jobs"`
}
