package store

import (
	"context"
	"time"
)

// JobRecord is a replay or backfill job as the database keeps it, so that
// every node of a fleet shows it, with its progress, and any node can ask
// it to stop.
type JobRecord struct {
	ID    string
	Kind  string
	Actor string // who started it
	State string
	Node  string // the node that runs it
	Total int64
	Done  int64
	// LastEventID is how far the walk went, in event id order.
	LastEventID string
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
}

// KeepJobs is how many jobs ListJobs returns at most, newest first.
const KeepJobs = 100

// Jobs keeps the replay and backfill jobs of every node.
type Jobs interface {
	// CreateJob records a job that starts.
	CreateJob(ctx context.Context, j JobRecord) error
	// SaveJob writes j's progress and end (State, Node, Total, Done,
	// LastEventID, Result, Error, RunningAt, FinishedAt) and returns who
	// asked it to stop, if anyone did. An unknown id is ErrNotFound.
	SaveJob(ctx context.Context, j JobRecord) (cancelledBy string, err error)
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
