package store

import (
	"context"
	"errors"
	"time"
)

var (
	// ErrJobTaken reports that a job is no longer the node's that writes
	// it: its lease ran out and another node took it over (see
	// TakeOverJob). Nothing was written.
	ErrJobTaken = errors.New("store: job taken over by another node")
	// ErrJobCancelled ends the walk of a job tied to it (see JobTie) after
	// the batch that found someone had asked the job to stop; that batch
	// committed.
	ErrJobCancelled = errors.New("store: job cancelled")
)

// JobRecord is a replay or backfill job as the database keeps it, so that
// every node of a fleet shows it, with its progress, any node can ask it
// to stop, and another node takes it over when the node that runs it
// dies.
type JobRecord struct {
	ID    string
	Kind  string
	Actor string // who started it
	State string
	Node  string // the node that runs it
	// Request is what the job does, as the admin API resolved it (JSON):
	// a node that takes the job over runs the same walk from it.
	Request []byte
	Total   int64
	Done    int64
	// LastEventID is how far the walk went, in event id order; a walk
	// over deliveries, in (event id, destination) order, also keeps the
	// destination of the last delivery it reached in LastDestination.
	// A walk taken over resumes after them.
	LastEventID     string
	LastDestination string
	// Result is what the job did so far, as the admin API writes it
	// (JSON); Error why it failed.
	Result []byte
	Error  string
	// StartedAt is when it was asked for; RunningAt when its walk began
	// (zero while it counts); FinishedAt when it ended (zero while it
	// runs).
	StartedAt  time.Time
	RunningAt  time.Time
	FinishedAt time.Time
	// CancelledBy names who asked it to stop; empty while no one has.
	CancelledBy string
	// LeaseUntil is when the job stops being Node's unless Node renews
	// it, by the database's clock; a job not finished whose lease ran out
	// is taken over by another node. TakenOverFrom names the node that
	// ran it before Node took it over; empty when none did.
	LeaseUntil    time.Time
	TakenOverFrom string
}

// JobTie ties the batches of a job's walk to the job: each batch's
// transaction also writes the job's progress and renews its lease, and
// commits only while the job is still Node's. A node that was presumed
// dead (a long pause, a partition) and comes back after another took its
// job over so commits no further batch: no batch is applied by both.
type JobTie struct {
	ID   string
	Node string
	// Lease is how long the job stays Node's after each batch.
	Lease time.Duration
}

// JobProgress is how far a job's walk went, as a batch commits it with
// the job (see JobRecord for each field).
type JobProgress struct {
	Done            int64
	LastEventID     string
	LastDestination string
	Result          []byte
}

// KeepJobs is how many jobs ListJobs returns at most, newest first.
const KeepJobs = 100

// AuditTakeover is the kind of the audit row of a job that a node took
// over from another: its detail names the job, the node that had it and
// the node that took it.
const AuditTakeover = "job_takeover"

// Jobs keeps the replay and backfill jobs of every node.
type Jobs interface {
	// CreateJob records a job that starts, Node's for lease from now.
	CreateJob(ctx context.Context, j JobRecord, lease time.Duration) error
	// SaveJob writes j's state and end (State, Total, Error, RunningAt,
	// FinishedAt), renews its lease for lease from now, and returns who
	// asked it to stop, if anyone did; j.Node must still hold the job,
	// else it writes nothing and fails with ErrJobTaken. An unknown id is
	// ErrNotFound. The job's progress (Done, LastEventID,
	// LastDestination, Result) is written by the batches of its walk
	// alone, each in its own transaction (see JobTie).
	SaveJob(ctx context.Context, j JobRecord, lease time.Duration) (cancelledBy string, err error)
	// RenewJob renews the lease of the job with id for lease from now,
	// while node holds it and it has not finished; otherwise it fails
	// with ErrJobTaken (or ErrNotFound for an unknown id).
	RenewJob(ctx context.Context, id, node string, lease time.Duration) error
	// ExpiredJobs returns the ids of the jobs not finished whose lease
	// ran out, oldest first: those another node may take over. It reads
	// them in one statement against the process's clock: what it returns
	// is a hint, which TakeOverJob checks against the database's.
	ExpiredJobs(ctx context.Context) ([]string, error)
	// TakeOverJob makes the job with id node's, for lease from now, if it
	// has not finished and its lease ran out, and returns it as it is
	// then, with TakenOverFrom naming the node that had it. The same
	// transaction writes the AuditTakeover row, with node as its actor.
	// Of two nodes that try at once, one takes it; the other, or any
	// node when the job is not free, gets ErrJobTaken. An unknown id is
	// ErrNotFound.
	TakeOverJob(ctx context.Context, id, node string, lease time.Duration) (JobRecord, error)
	// GetJob returns the job with id, or ErrNotFound.
	GetJob(ctx context.Context, id string) (JobRecord, error)
	// ListJobs returns the newest KeepJobs jobs, newest first.
	ListJobs(ctx context.Context) ([]JobRecord, error)
	// CancelJob records that actor asks the job with id to stop, unless
	// it ended or someone asked before, and returns the job; the node
	// that runs it stops it between two batches. An unknown id is
	// ErrNotFound.
	CancelJob(ctx context.Context, id, actor string) (JobRecord, error)
}
