// Package testkit holds what the tests of every package share: waiting for
// a condition instead of sleeping for a guessed time. Its subpackages run
// relays, seed databases, simulate providers and generate load.
package testkit

import (
	"fmt"
	"testing"
	"time"
)

// Poll intervals: the first retry comes quickly, so that a condition that
// holds a moment later costs a moment, and the interval then doubles up to
// maxPoll, so that a long wait does not keep a shared machine busy.
const (
	firstPoll = 2 * time.Millisecond
	maxPoll   = 100 * time.Millisecond
)

// Eventually calls cond until it returns nil, waiting a little longer
// between calls each time, and fails the test (FailNow) if cond has not
// returned nil within timeout. The failure names what the test waited for
// and quotes cond's last error, which should say what was seen instead
// ("3 requests, want 5"). cond runs on the test's goroutine, so it may
// call t.Fatal.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	wait := firstPoll
	for {
		err := cond()
		if err == nil {
			return
		}
		if !time.Now().Before(deadline) {
			t.Fatalf("waited %s for %s: %v", timeout, what, err)
		}
		time.Sleep(min(wait, time.Until(deadline)))
		wait = min(2*wait, maxPoll)
	}
}

// Consistently calls cond until d has passed, waiting a little between
// calls, and fails the test (FailNow) the first time it returns an error.
// It is for what must not happen: a second alert, a delivery to a paused
// destination. Its d is the time such a thing would take to show, which
// the test should say why it chose.
func Consistently(t testing.TB, d time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	wait := firstPoll
	for {
		if err := cond(); err != nil {
			t.Fatalf("%s: broken after %s of %s: %v", what, (d - time.Until(deadline)).Round(time.Millisecond), d, err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		time.Sleep(min(wait, left))
		wait = min(2*wait, maxPoll)
	}
}

// Check returns nil when ok holds and otherwise an error made from format
// and args, for a condition of Eventually or Consistently that is one
// comparison: testkit.Check(len(got) >= n, "%d requests, want %d", len(got), n).
func Check(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}
