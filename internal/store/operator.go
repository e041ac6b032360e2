package store

import (
	"context"
	"errors"
	"time"
)

// ErrFinal reports a change asked of a delivery that is already done,
// skipped, dead or purged.
var ErrFinal = errors.New("store: delivery is final")

// Audit log kinds besides a replay ("replay") and a backfill ("backfill").
const (
	AuditPause  = "pause"
	AuditResume = "resume"
	AuditSkip   = "skip"
	AuditPurge  = "purge"
)

// AuditEntry is one row of the audit log: a replay, a backfill, a purge,
// an operator's pause, resume or skip, or a job taken over.
type AuditEntry struct {
	ID    int64
	At    time.Time
	Actor string
	// Kind is "replay", "backfill", AuditPurge, AuditPause, AuditResume,
	// AuditSkip or AuditTakeover.
	Kind string
	// Detail is what the action selected, as a JSON object: a replay's
	// filter, a backfill's destination and window, a purge's selector and
	// reason, the destination paused or resumed, the delivery skipped,
	// the job taken over and the two nodes (see AuditTakeover).
	Detail string
	// Matched, Rearmed and InFlight count a replay's deliveries; Created a
	// backfill's; Matched and Purged a purge's events.
	Matched, Rearmed, InFlight, Created, Purged int64
	DryRun                                      bool
}

// Operator is what an operator does to the queue during an incident, and
// the record of it.
type Operator interface {
	// SetPaused pauses a destination, or resumes it: while it is paused,
	// ClaimDeliveries claims none of its deliveries and NextDue reports
	// none; its deliveries wait, nothing is dropped, and a delivery
	// already claimed finishes. Each call writes an audit row (AuditPause
	// or AuditResume), also when nothing changes.
	SetPaused(ctx context.Context, destination string, paused bool, actor string, now time.Time) error

	// Paused returns the paused destinations with the time each was
	// paused.
	Paused(ctx context.Context) (map[string]time.Time, error)

	// SkipDelivery sets a delivery that is not final to skipped, clearing
	// its lease (a holder's outcome is then not recorded: ErrLeaseLost),
	// with a last error that names actor, and writes an audit row
	// (AuditSkip). It returns the delivery as it is after; ErrNotFound
	// for an unknown id, ErrFinal for a done, skipped or dead one.
	SkipDelivery(ctx context.Context, id int64, actor string, now time.Time) (Delivery, error)

	// AuditLog returns the audit rows written at or after since, newest
	// first, at most limit.
	AuditLog(ctx context.Context, since time.Time, limit int) ([]AuditEntry, error)
}
