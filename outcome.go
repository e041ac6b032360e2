package hookrelay

import (
	"time"

	"github.com/hookrelay/hookrelay/internal/delivery"
)

// The outcomes a HandlerFunc asks for besides done (nil) and a failed
// attempt (any other error). When an error's chain holds several, Skip
// wins over Snooze, and Snooze over Permanent.

// Skip, returned by a HandlerFunc (wrapped or not, as by
// fmt.Errorf("order %s already paid: %w", id, hookrelay.Skip)), marks the
// delivery skipped and commits the handler's writes. The error's text is
// recorded with the attempt.
var Skip = delivery.ErrSkip

// Permanent returns err as a permanent failure: returned by a HandlerFunc,
// wrapped or not, it rolls the handler's writes back and marks the
// delivery dead at once, after this one attempt, with err's text — for an
// event no retry can fix (an order that does not exist, a payload the
// application cannot read). The dead letter is listed, counted and
// alerted like any other, and replay hands it to the handler again. A nil
// err is a permanent failure too.
func Permanent(err error) error { return delivery.Permanent(err) }

// Snooze returns an error that, returned by a HandlerFunc (wrapped or
// not), rolls the handler's writes back and hands the event back to be
// handled again after d: for an event that arrived before what it depends
// on (a payment before its order). A snooze is not an attempt: it is not
// counted against MaxAttempts, records no attempt, takes no backoff, and
// the next call sees the same Event.Attempt. The delivery then shows as it
// was before the call — pending, or failed after an earlier failure, with
// that failure's error — due at the snooze's end; a delivery with an
// ordering key keeps holding its key meanwhile. A d below zero counts as
// zero: handled again at once. A handler that snoozes for ever is never
// dead.
func Snooze(d time.Duration) error { return delivery.Snooze(d) }
