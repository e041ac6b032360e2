package store

import (
	"context"
	"errors"
	"slices"
	"time"
)

// ErrLeaseLost reports that a delivery's lease ran out and the delivery was
// claimed again (or released) before its holder finished with it; the late
// holder's outcome is not recorded.
var ErrLeaseLost = errors.New("store: lease lost")

// ClaimRequest asks for due deliveries of one destination.
type ClaimRequest struct {
	Destination string
	// Max is the most deliveries to claim.
	Max int
	// Lease is how long the claim holds; it must outlast the request the
	// claimer is about to make.
	Lease time.Duration
	// Now is the claim time; due means next_attempt_at <= Now.
	Now time.Time
	// MaxAttempts, when above zero, is the destination's max attempts,
	// and makes an expired lease count as a lost attempt (see
	// ClaimDeliveries). Zero claims an expired lease again without a
	// trace of the attempt it cut short.
	MaxAttempts int
}

// LostAttemptError is the error recorded with an attempt whose lease ran
// out before its outcome was recorded: the worker or the process that held
// it was lost (a crash, a kill, a handler that took the process down) or
// never answered in time.
const LostAttemptError = "worker lost: lease expired while the attempt ran"

// MaxLostPerClaim bounds how many expired leases one claim records as lost
// attempts; the rest wait for the next claim.
const MaxLostPerClaim = 100

// Claim is one delivery leased to one claimer, with its event.
type Claim struct {
	// Delivery has status processing, Attempts counting the attempt now
	// being made, and LeaseUntil set.
	Delivery Delivery
	// LeaseToken guards completion: only the holder of the current lease
	// may record the outcome.
	LeaseToken string
	Event      Event
	// Deferred tells that the delivery was leased at ingest and its row
	// is not written yet (see Lease): its completion or release must say
	// so.
	Deferred bool
}

// SplitLost separates what ClaimDeliveries returned: the deliveries
// claimed, and those it found lost with their attempts run out and marked
// dead.
func SplitLost(cs []Claim) (claimed, dead []Claim) {
	isDead := func(c Claim) bool { return c.Delivery.Status == StatusDead }
	if !slices.ContainsFunc(cs, isDead) {
		return cs, nil // the usual case: nothing was lost
	}
	for _, c := range cs {
		if isDead(c) {
			dead = append(dead, c)
		} else {
			claimed = append(claimed, c)
		}
	}
	return claimed, dead
}

// Attempt is one try of one delivery.
type Attempt struct {
	ID          int64
	DeliveryID  int64
	AttemptedAt time.Time
	Duration    time.Duration
	// StatusCode is the response code, 0 when none was received.
	StatusCode int
	// Error is the transport error or a short description of the failure.
	Error string
	// ResponseSnippet is the start of the response body, at most 1 KiB.
	ResponseSnippet string
	// Round is the delivery's replay count when the attempt was made: 0
	// for the attempts before any replay, 1 after the first, and so on.
	// The store records it; a Completion's value is ignored.
	Round int
	// RequestHeaders are the headers hookrelay sent with a push attempt,
	// its signature cut short, and ResponseHeaders those the destination
	// answered with; nil when none were kept (a push keeps them for a
	// failed attempt only, see delivery.Result.Attempt). Keys are canonical MIME
	// header keys. The store keeps, of each, at most MaxAttemptHeaders
	// values and MaxAttemptHeaderBytes of names and values, in name
	// order, and counts the values it left out in HeadersDropped (a
	// Completion's value is ignored). Like the snippet, they are sealed
	// at rest and erased by a purge.
	RequestHeaders  map[string][]string
	ResponseHeaders map[string][]string
	HeadersDropped  int
}

// Bounds of the headers kept with an attempt, on each side.
const (
	// MaxAttemptHeaders is the most header values kept.
	MaxAttemptHeaders = 50
	// MaxAttemptHeaderBytes is the most bytes of names and values kept.
	MaxAttemptHeaderBytes = 8 << 10
)

// Completion records the outcome of one claimed attempt.
type Completion struct {
	DeliveryID int64
	// Deferred tells that the delivery's row may not be written yet (its
	// claim's Deferred): the outcome then writes it whole, with EventID
	// and Destination, unless another claim has taken it over meanwhile.
	Deferred    bool
	Destination string
	// EventID, when set, must be the delivery's event (its claim's
	// Delivery.EventID): on a partitioned event log the outcome then
	// reads that event's partition alone, rather than every partition's
	// index of delivery ids.
	EventID    string
	LeaseToken string
	// Status is the delivery's new status: done, skipped, failed or dead.
	Status DeliveryStatus
	// NextAttemptAt is when a failed delivery is due again.
	NextAttemptAt time.Time
	Attempt       Attempt
	Now           time.Time
}

// Release hands a claimed delivery back unattempted.
type Release struct {
	DeliveryID int64
	LeaseToken string
	// Deferred, EventID and Destination are as a Completion's: a deferred
	// delivery handed back is written pending.
	Deferred    bool
	EventID     string
	Destination string
}

// Snooze hands a claimed delivery back unattempted, due again at Until.
type Snooze struct {
	DeliveryID int64
	LeaseToken string
	Until      time.Time
	// Now is when it is handed back; zero means the current time.
	Now time.Time
}

// Queue is the delivery side of the store: the event log is the queue.
type Queue interface {
	// ClaimDeliveries leases up to Max due deliveries of one destination,
	// oldest due first: status pending or failed with next_attempt_at <=
	// Now, or processing with an expired lease. Each claimed row becomes
	// processing with a new lease token, lease_until = Now + Lease and
	// attempts + 1. For rows with an ordering key, only the key's head is
	// claimable — its oldest live delivery by the event's occurred_at
	// (received_at when absent) — and only while no other delivery of that
	// key holds a live lease. On PostgreSQL concurrent claimers never
	// receive the same row (FOR UPDATE SKIP LOCKED).
	//
	// With req.MaxAttempts set, an expired lease is a lost attempt: before
	// it claims, the claim records, for up to MaxLostPerClaim of the
	// destination's deliveries whose lease ran out, an attempt with the
	// error LostAttemptError (attempted at the claim that leased it, its
	// duration the lease), and sets each delivery to dead when its
	// attempts have reached MaxAttempts, or to failed, due when it was
	// due before, otherwise; the claim then takes those as any other due
	// delivery. Expired leases are then claimed only that way. A dead one
	// is returned too, with status dead and no LeaseToken, so that the
	// caller reports the dead letter: SplitLost separates them. A
	// delivery whose holder still keeps it from other claimers (the
	// transaction of CompleteWithin) is not lost, whatever its lease.
	ClaimDeliveries(ctx context.Context, req ClaimRequest) ([]Claim, error)

	// CompleteDelivery records an attempt and sets the delivery's new
	// status, provided the lease token still matches; otherwise it returns
	// ErrLeaseLost and records nothing.
	CompleteDelivery(ctx context.Context, c Completion) error

	// CompleteDeliveries records many outcomes in one transaction, each as
	// CompleteDelivery would alone. It returns, for each completion in
	// order, true when it was recorded and false when its lease was lost;
	// a delivery listed twice is recorded at most once, the first time.
	// A completion whose status is not an outcome fails the whole call,
	// and on error nothing of the batch is committed.
	CompleteDeliveries(ctx context.Context, cs []Completion) ([]bool, error)

	// ReleaseDeliveries returns held deliveries to their queue, due now,
	// without counting the attempt. Rows whose lease token no longer
	// matches are left alone.
	ReleaseDeliveries(ctx context.Context, rs []Release) error

	// SnoozeDelivery hands a held delivery back, as ReleaseDeliveries
	// does, due at s.Until rather than now: the attempt its claim counted
	// is not counted, it records no attempt, and it becomes pending when
	// that leaves it no attempt, failed otherwise, its last error as it
	// was. It returns an error wrapping ErrLeaseLost when the delivery is
	// no longer processing under s.LeaseToken.
	SnoozeDelivery(ctx context.Context, s Snooze) error

	// NextDue returns when the destination's next live delivery is due
	// (its next_attempt_at, or lease_until for one processing); ok is false
	// when it has none.
	NextDue(ctx context.Context, destination string) (at time.Time, ok bool, err error)

	// DeliveryAttempts returns the attempts of one delivery, oldest first.
	DeliveryAttempts(ctx context.Context, deliveryID int64) ([]Attempt, error)

	// IsPaused reports whether destination is paused as ClaimDeliveries
	// sees it: a pause or resume made through this store at once, one
	// made by another process within a second. It mostly answers from
	// memory. The error wraps ErrUnavailable when the paused destinations
	// cannot be read.
	IsPaused(ctx context.Context, destination string) (bool, error)
}
