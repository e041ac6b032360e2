package delivery

import (
	"errors"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// A handler's error decides its delivery's outcome beyond done: ErrSkip
// (handler.go) commits and marks it skipped, a PermanentError rolls back
// and marks it dead at once, a SnoozeError rolls back and hands it back
// for later without counting the attempt, and any other error rolls back
// and fails the attempt.

// PermanentError is a handler's failure that no retry can fix: the
// delivery is dead after this attempt, whatever its attempts left.
type PermanentError struct{ Err error }

// Permanent returns err as a PermanentError. A nil err is a permanent
// failure still, with a generic text.
func Permanent(err error) error {
	if err == nil {
		err = errors.New("permanent failure")
	}
	return &PermanentError{Err: err}
}

// Error returns the text of the error it wraps: the text recorded with
// the attempt.
func (e *PermanentError) Error() string { return e.Err.Error() }

// Unwrap returns the error it wraps.
func (e *PermanentError) Unwrap() error { return e.Err }

// SnoozeError hands a handler's delivery back, its writes rolled back, due
// again After from now, without counting the attempt and without the
// destination's backoff.
type SnoozeError struct{ After time.Duration }

// Snooze returns a SnoozeError; a duration below zero counts as zero.
func Snooze(after time.Duration) error { return &SnoozeError{After: max(0, after)} }

// Error says for how long.
func (e *SnoozeError) Error() string { return fmt.Sprintf("hookrelay: snooze for %s", e.After) }

// HandlerVerdict is what a handler's result asks for its delivery.
type HandlerVerdict int

// The verdicts, by what the handler returned.
const (
	HandlerDone      HandlerVerdict = iota // nil: commit, done
	HandlerFail                            // any other error: roll back, a failed attempt, retried on the backoff or dead
	HandlerSkip                            // ErrSkip: commit, skipped
	HandlerPermanent                       // a PermanentError: roll back, dead now
	HandlerSnooze                          // a SnoozeError: roll back, due later, uncounted
)

// HandlerVerdictOf returns what a handler's result err asks for, and the
// snooze's length when it asks for one. When its chain holds several, the
// first of skip, snooze and permanent, in that order, wins.
func HandlerVerdictOf(err error) (HandlerVerdict, time.Duration) {
	var (
		sn *SnoozeError
		pe *PermanentError
	)
	switch {
	case err == nil:
		return HandlerDone, 0
	case errors.Is(err, ErrSkip):
		return HandlerSkip, 0
	case errors.As(err, &sn):
		return HandlerSnooze, sn.After
	case errors.As(err, &pe):
		return HandlerPermanent, 0
	}
	return HandlerFail, 0
}

// Commits reports whether the handler's writes commit with its delivery's
// outcome: they do when it is done or skipped, and roll back otherwise.
func (v HandlerVerdict) Commits() bool { return v == HandlerDone || v == HandlerSkip }

// DecideHandler returns the status and next due time of a handler's
// delivery whose attempt number attempts (the first is 1) failed at now
// with cause, neither a skip nor a snooze: dead at once when cause is a
// PermanentError, otherwise as Decide says.
func (p Policy) DecideHandler(cause error, attempts int, now time.Time) (store.DeliveryStatus, time.Time) {
	if v, _ := HandlerVerdictOf(cause); v == HandlerPermanent {
		return store.StatusDead, time.Time{}
	}
	return p.Decide(attempts, 0, now)
}
