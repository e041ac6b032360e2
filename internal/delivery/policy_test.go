package delivery

import (
	"net/http"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

func fixedRand(v float64) func() float64 { return func() float64 { return v } }

func TestPolicyDelay(t *testing.T) {
	t.Parallel()
	steps := []time.Duration{10 * time.Second, time.Minute, 5 * time.Minute}
	tests := []struct {
		name       string
		backoff    []time.Duration
		jitter     float64
		rand       float64
		attempts   int
		retryAfter time.Duration
		want       time.Duration
	}{
		{name: "first retry", backoff: steps, attempts: 1, want: 10 * time.Second},
		{name: "second retry", backoff: steps, attempts: 2, want: time.Minute},
		{name: "last step", backoff: steps, attempts: 3, want: 5 * time.Minute},
		{name: "last step repeats", backoff: steps, attempts: 9, want: 5 * time.Minute},
		{name: "attempts below one reads as one", backoff: steps, attempts: 0, want: 10 * time.Second},
		{name: "jitter low edge", backoff: steps, jitter: 0.2, rand: 0, attempts: 1, want: 8 * time.Second},
		{name: "jitter middle", backoff: steps, jitter: 0.2, rand: 0.5, attempts: 1, want: 10 * time.Second},
		{name: "jitter high edge", backoff: steps, jitter: 0.2, rand: 1, attempts: 1, want: 12 * time.Second},
		{name: "jitter never negative", backoff: steps, jitter: 3, rand: 0, attempts: 1, want: 0},
		{name: "retry-after shorter than backoff", backoff: steps, attempts: 2, retryAfter: 5 * time.Second, want: time.Minute},
		{name: "retry-after longer than backoff", backoff: steps, attempts: 1, retryAfter: 2 * time.Minute, want: 2 * time.Minute},
		{name: "retry-after beats jitter", backoff: steps, jitter: 0.2, rand: 0, attempts: 1, retryAfter: 9 * time.Second, want: 9 * time.Second},
		{name: "retry-after capped at largest step", backoff: steps, attempts: 1, retryAfter: time.Hour, want: 5 * time.Minute},
		{name: "retry-after capped at a day", backoff: []time.Duration{time.Minute, 72 * time.Hour}, attempts: 1, retryAfter: 48 * time.Hour, want: 24 * time.Hour},
		{name: "no backoff, no retry-after", attempts: 1, want: 0},
		{name: "no backoff caps retry-after to nothing", attempts: 1, retryAfter: time.Minute, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := Policy{MaxAttempts: 10, Backoff: tt.backoff, Jitter: tt.jitter, Rand: fixedRand(tt.rand)}
			if got := p.Delay(tt.attempts, tt.retryAfter); got != tt.want {
				t.Errorf("Delay(%d, %v) = %v, want %v", tt.attempts, tt.retryAfter, got, tt.want)
			}
		})
	}
}

func TestPolicyJitterStaysInBand(t *testing.T) {
	t.Parallel()
	p := Policy{MaxAttempts: 3, Backoff: []time.Duration{10 * time.Second}, Jitter: DefaultJitter}
	for range 1000 {
		d := p.Delay(1, 0)
		if d < 8*time.Second || d > 12*time.Second {
			t.Fatalf("Delay = %v, want within [8s, 12s]", d)
		}
	}
}

func TestPolicyDecide(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := Policy{MaxAttempts: 3, Backoff: []time.Duration{time.Second, time.Minute}}
	tests := []struct {
		name       string
		attempts   int
		retryAfter time.Duration
		wantStatus store.DeliveryStatus
		wantNext   time.Time
	}{
		{name: "first try failed", attempts: 1, wantStatus: store.StatusFailed, wantNext: now.Add(time.Second)},
		{name: "second try failed", attempts: 2, wantStatus: store.StatusFailed, wantNext: now.Add(time.Minute)},
		{name: "second try with retry-after", attempts: 2, retryAfter: 30 * time.Second, wantStatus: store.StatusFailed, wantNext: now.Add(time.Minute)},
		{name: "last try failed", attempts: 3, wantStatus: store.StatusDead},
		{name: "beyond the last try", attempts: 4, wantStatus: store.StatusDead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, next := p.Decide(tt.attempts, tt.retryAfter, now)
			if status != tt.wantStatus || !next.Equal(tt.wantNext) {
				t.Errorf("Decide(%d) = %s, %v; want %s, %v", tt.attempts, status, next, tt.wantStatus, tt.wantNext)
			}
		})
	}
	if status, _ := (Policy{MaxAttempts: 1}).Decide(1, 0, now); status != store.StatusDead {
		t.Errorf("max_attempts 1: Decide(1) = %s, want dead", status)
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name  string
		value string
		want  time.Duration
	}{
		{name: "empty", value: "", want: 0},
		{name: "seconds", value: "120", want: 2 * time.Minute},
		{name: "seconds with spaces", value: " 7 ", want: 7 * time.Second},
		{name: "zero", value: "0", want: 0},
		{name: "negative", value: "-5", want: 0},
		{name: "huge seconds do not overflow", value: "99999999999999999", want: MaxRetryAfter + time.Second},
		{name: "http date", value: now.Add(90 * time.Second).Format(http.TimeFormat), want: 90 * time.Second},
		{name: "past http date", value: now.Add(-time.Hour).Format(http.TimeFormat), want: 0},
		{name: "garbage", value: "soon", want: 0},
		{name: "fraction", value: "1.5", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ParseRetryAfter(tt.value, now); got != tt.want {
				t.Errorf("ParseRetryAfter(%q) = %v, want %v", tt.value, got, tt.want)
			}
		})
	}
}
