package store

import (
	"context"
	"errors"
	"time"
)

// ErrBadFilter reports a filter the store cannot apply, such as a type glob
// with a character class.
var ErrBadFilter = errors.New("store: bad filter")

// EventFilter selects events, for listing and for replay. Zero fields do not
// filter.
type EventFilter struct {
	// IDs selects these hookrelay event ids only.
	IDs []string
	// Source is a source name.
	Source string
	// Type is an event-type glob: '*' matches any run of characters, '?'
	// one character; other glob syntax is ErrBadFilter.
	Type string
	// Destination and Status select events with a delivery to that
	// destination, or in that status, or both on the same delivery. For
	// replay they also choose which of the event's deliveries are re-armed.
	Destination string
	Status      DeliveryStatus
	// Since and Until bound received_at: Since <= received_at < Until.
	Since, Until time.Time
}

// ListRequest asks for one page of events, newest first.
type ListRequest struct {
	Filter EventFilter
	// Cursor is the NextCursor of the previous page; empty for the first.
	// Pages stay stable while events keep arriving: a page continues
	// strictly below the previous page's last id.
	Cursor string
	// Limit is the page size.
	Limit int
}

// DeliveryState is one delivery's destination and status, as listed with
// its event.
type DeliveryState struct {
	ID          int64
	Destination string
	Status      DeliveryStatus
	Attempts    int
}

// EventSummary is one listed event: every field but the body and headers.
type EventSummary struct {
	Event      Event // Body and Headers are nil
	BodySize   int64
	Deliveries []DeliveryState
}

// ReplayRequest re-arms the deliveries of the events a filter selects.
type ReplayRequest struct {
	Filter EventFilter
	DryRun bool
	// Actor names who asked (the token's name), for the audit row.
	Actor string
	Now   time.Time
	// NoAuditRow leaves out the audit row: for a dry run that is part of
	// an operation recorded on its own (the count a replay job starts
	// with).
	NoAuditRow bool
	// MaxBatch, when positive, bounds the deliveries of one batch below
	// the driver's own size, for finer progress.
	MaxBatch int
	// Progress, when set, is called after each batch that committed with
	// the totals so far and the id of the last event the walk reached:
	// the walk goes in event id order, so every selected delivery of an
	// event up to that id has been counted, and none after it. An error
	// from it stops the walk there, between two batches, so that what
	// was re-armed is exactly what it was last told; Replay then writes
	// the audit row and returns the result so far with that error.
	Progress func(done ReplayResult, lastEventID string) error
	// Job, when set on a replay that re-arms, ties each batch to a job
	// (see JobTie): the batch's transaction also writes to the job what
	// JobProgress returns from the totals so far and the key of the last
	// delivery the walk reached. A batch whose job another node took
	// over is rolled back, and the walk ends with ErrJobTaken and writes
	// no audit row (the node that took the job over writes it), as does a
	// walk whose context ended (the job will be taken over). After a
	// batch that finds someone asked the job to stop, Progress is told
	// and the walk ends with ErrJobCancelled.
	Job         *JobTie
	JobProgress func(done ReplayResult, last ReplayKey) JobProgress
	// Resume continues a walk that stopped part way (a job another node
	// began): it goes on after Resume.After, counting from Resume.Done,
	// so that its totals, its progress and its audit row count the whole
	// walk. The zero Resume starts from the beginning.
	Resume ReplayResume
}

// ReplayKey is the position of a delivery in a replay's walk, which goes
// in (event id, destination) order.
type ReplayKey struct {
	EventID     string
	Destination string
}

// ReplayResume is where a replay resumes: after the delivery at After,
// with the totals Done it had reached.
type ReplayResume struct {
	After ReplayKey
	Done  ReplayResult
}

// ReplayResult counts delivery rows.
type ReplayResult struct {
	// Matched is how many deliveries the filter selects.
	Matched int64
	// Rearmed is how many were set back to pending (0 on a dry run).
	Rearmed int64
	// InFlight is how many were processing and left alone.
	InFlight int64
}

// BackfillDelivery is one delivery row a backfill creates.
type BackfillDelivery struct {
	EventID     string
	Destination string
	OrderingKey string
}

// DestinationStats counts one destination's deliveries.
type DestinationStats struct {
	// Counts has every status, zeros included.
	Counts map[DeliveryStatus]int64
	// OldestPendingAge is the age of the oldest due delivery that is
	// pending or failed, or 0 when none is.
	OldestPendingAge time.Duration
}

// SourceStats counts one source's ingest outcomes since the database was
// created: stored events, duplicates answered 200 without a write, and
// requests rejected.
type SourceStats struct {
	Received   int64
	Duplicates int64
	Rejected   int64
}

// Stats is a snapshot of the relay's work.
type Stats struct {
	Destinations map[string]DestinationStats
	Sources      map[string]SourceStats
}

// PruneRequest deletes finished events past their retention.
type PruneRequest struct {
	// DoneBefore: events received before it whose deliveries are all done,
	// skipped or purged (or that have none) are deleted.
	DoneBefore time.Time
	// DeadBefore: events received before it whose deliveries are all final
	// with at least one dead are deleted.
	DeadBefore time.Time
	// Limit bounds the events deleted by one call.
	Limit int
}

// Operations is the operator side of the store: listing, replay, backfill,
// statistics and retention.
type Operations interface {
	// ListEvents returns one page of events matching the filter, newest
	// first, with their deliveries, and the cursor of the next page (empty
	// on the last page). A type glob the store cannot apply is
	// ErrBadFilter.
	ListEvents(ctx context.Context, req ListRequest) (events []EventSummary, nextCursor string, err error)

	// Replay re-arms every delivery of the selected events (of
	// Filter.Destination and in Filter.Status when set) that is not
	// processing: status pending, attempts 0, next_attempt_at Now, lease
	// and finished_at cleared, replay_count + 1. It works in bounded
	// batches of one transaction each, so that ingest goes on between
	// two, and never reads an event's body. It writes an audit row (also
	// for a dry run, which changes nothing else and reports Rearmed 0);
	// when a batch fails after others were re-armed (or ctx ends between
	// two), the row records what was and that result is returned with
	// the error.
	Replay(ctx context.Context, req ReplayRequest) (ReplayResult, error)

	// BackfillCandidates returns up to limit events received in [since,
	// until) from the given sources, after the event id after (empty for
	// the start), oldest first, that have no delivery to destination.
	// Like a listing, it reads no body or headers (routing an event needs
	// its source and type; only an ordering key needs the body, which
	// EventBodies reads); Deliveries are not filled in.
	BackfillCandidates(ctx context.Context, destination string, sources []string, since, until time.Time, after string, limit int) ([]EventSummary, error)

	// EventBodies returns the bodies of the events ids, by id; an unknown
	// id has none.
	EventBodies(ctx context.Context, ids []string) (map[string][]byte, error)

	// CreateDeliveries inserts pending delivery rows, due at now, skipping
	// any (event, destination) that exists; it returns how many it created.
	CreateDeliveries(ctx context.Context, ds []BackfillDelivery, now time.Time) (int64, error)

	// CreateJobDeliveries is CreateDeliveries for a page of a backfill
	// job tied to it (see JobTie): the same transaction writes to the job
	// what progress returns from the number created, and commits only
	// while the job is tie.Node's, else nothing is created and it fails
	// with ErrJobTaken. It also writes the progress of a page that
	// creates nothing (ds empty). It returns who asked the job to stop,
	// if anyone did.
	CreateJobDeliveries(ctx context.Context, ds []BackfillDelivery, now time.Time, tie JobTie, progress func(created int64) JobProgress) (created int64, cancelledBy string, err error)

	// RecordBackfill writes the audit row of a backfill.
	RecordBackfill(ctx context.Context, actor, destination string, since, until time.Time, created int64, dryRun bool, now time.Time) error

	// Stats counts deliveries by destination and status, and ingest
	// outcomes by source. The counts are kept as deliveries change state
	// and are exact; reading them costs the same whatever the number of
	// deliveries stored (one index probe per destination for the oldest
	// due one). A destination whose deliveries are all gone is not
	// reported.
	Stats(ctx context.Context, now time.Time) (Stats, error)

	// CountIngest adds ingest outcomes that receivers counted in memory and
	// flush now and then (a hot counter row inside Ingest would serialise
	// concurrent commits). The counts are statistics: a crash may lose the
	// last unflushed second of them, never an event.
	CountIngest(ctx context.Context, counts map[string]SourceStats) error

	// Prune deletes up to Limit finished events past their retention, with
	// their deliveries and attempts, and returns how many it deleted. It
	// never deletes an event with a pending, processing or failed delivery.
	// It also deletes the activity counters (see Activity) of the minutes
	// that ended before the earlier of the bounds set: what the longer
	// retention keeps, their counts stay. The deleted counters are not in
	// the count it returns.
	Prune(ctx context.Context, req PruneRequest) (int64, error)

	Operator
	Failures
}
