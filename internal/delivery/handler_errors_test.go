package delivery

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

func TestVerdictOf(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, tt := range []struct {
		name  string
		err   error
		want  HandlerVerdict
		after time.Duration
	}{
		{"nil", nil, HandlerDone, 0},
		{"plain error", boom, HandlerFail, 0},
		{"skip", ErrSkip, HandlerSkip, 0},
		{"wrapped skip", fmt.Errorf("stale: %w", ErrSkip), HandlerSkip, 0},
		{"permanent", Permanent(boom), HandlerPermanent, 0},
		{"wrapped permanent", fmt.Errorf("look up: %w", Permanent(boom)), HandlerPermanent, 0},
		{"permanent of nil", Permanent(nil), HandlerPermanent, 0},
		{"snooze", Snooze(time.Minute), HandlerSnooze, time.Minute},
		{"wrapped snooze", fmt.Errorf("not yet: %w", Snooze(time.Second)), HandlerSnooze, time.Second},
		{"negative snooze", Snooze(-time.Second), HandlerSnooze, 0},
		{"skip wins over snooze", errors.Join(Snooze(time.Second), ErrSkip), HandlerSkip, 0},
		{"snooze wins over permanent", errors.Join(Permanent(boom), Snooze(time.Second)), HandlerSnooze, time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, after := HandlerVerdictOf(tt.err)
			if got != tt.want || after != tt.after {
				t.Errorf("HandlerVerdictOf(%v) = %d, %s; want %d, %s", tt.err, got, after, tt.want, tt.after)
			}
		})
	}
	if got := Permanent(boom).Error(); got != "boom" {
		t.Errorf("Permanent(boom).Error() = %q, want the wrapped text", got)
	}
	if !errors.Is(Permanent(boom), boom) {
		t.Error("Permanent(boom) does not wrap boom")
	}
}

func TestHandlerVerdictCommits(t *testing.T) {
	t.Parallel()
	want := map[HandlerVerdict]bool{HandlerDone: true, HandlerSkip: true, HandlerFail: false, HandlerPermanent: false, HandlerSnooze: false}
	for v, commits := range want {
		if v.Commits() != commits {
			t.Errorf("verdict %d: Commits() = %t, want %t", v, v.Commits(), commits)
		}
	}
}

func TestDecideHandler(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	p := Policy{MaxAttempts: 3, Backoff: []time.Duration{time.Minute}}
	boom := errors.New("boom")
	for _, tt := range []struct {
		name     string
		cause    error
		attempts int
		status   store.DeliveryStatus
		next     time.Time
	}{
		{"first failure", boom, 1, store.StatusFailed, now.Add(time.Minute)},
		{"last attempt", boom, 3, store.StatusDead, time.Time{}},
		{"permanent at the first", fmt.Errorf("look up: %w", Permanent(boom)), 1, store.StatusDead, time.Time{}},
	} {
		status, next := p.DecideHandler(tt.cause, tt.attempts, now)
		if status != tt.status || !next.Equal(tt.next) {
			t.Errorf("%s: DecideHandler = %s, %s; want %s, %s", tt.name, status, next, tt.status, tt.next)
		}
	}
}

func TestCallHandler(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	if err := CallHandler(func() error { return boom }, nil); err != boom {
		t.Errorf("CallHandler of a failing fn = %v, want its error", err)
	}
	var value any
	var stack []byte
	err := CallHandler(func() error { panic("oops") }, func(v any, s []byte) { value, stack = v, s })
	if err == nil || err.Error() != "handler panicked: oops" {
		t.Errorf("CallHandler of a panicking fn = %v, want \"handler panicked: oops\"", err)
	}
	if value != "oops" || len(stack) == 0 {
		t.Errorf("panicked got %v and a stack of %d bytes, want oops and the stack", value, len(stack))
	}
}
