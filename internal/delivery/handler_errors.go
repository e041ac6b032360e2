package delivery

import (
	"errors"
	"fmt"
	"time"
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

// verdict is what a handler's error asks for.
type verdict int

const (
	verdictFail      verdict = iota // any other error: a failed attempt, retried on the backoff
	verdictSkip                     // ErrSkip: commit, skipped
	verdictPermanent                // a PermanentError: roll back, dead now
	verdictSnooze                   // a SnoozeError: roll back, due later, uncounted
)

// verdictOf returns what err asks for, and the snooze's length when it
// asks for one. When its chain holds several, the first of skip, snooze
// and permanent, in that order, wins.
func verdictOf(err error) (verdict, time.Duration) {
	var (
		sn *SnoozeError
		pe *PermanentError
	)
	switch {
	case errors.Is(err, ErrSkip):
		return verdictSkip, 0
	case errors.As(err, &sn):
		return verdictSnooze, sn.After
	case errors.As(err, &pe):
		return verdictPermanent, 0
	}
	return verdictFail, 0
}
