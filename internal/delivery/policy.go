package delivery

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// DefaultJitter is the fraction by which a backoff step is spread either
// way, so that deliveries failed together do not retry together.
const DefaultJitter = 0.2

// MaxRetryAfter is the longest a destination's Retry-After can hold a
// delivery back, whatever its backoff says.
const MaxRetryAfter = 24 * time.Hour

// Policy is one destination's retry schedule.
type Policy struct {
	// MaxAttempts counts every try, the first included; a delivery whose
	// attempts reach it after a failure is dead.
	MaxAttempts int
	// Backoff is the wait before each retry: Backoff[0] after the first
	// attempt, and so on; the last step repeats.
	Backoff []time.Duration
	// Jitter spreads each wait by up to ±Jitter of itself; 0 means none.
	Jitter float64
	// Rand returns a number in [0, 1); nil means math/rand/v2.
	Rand func() float64
}

// Decide returns the status and next due time of a delivery whose attempt
// number attempts (the first is 1) has just failed at now: dead when its
// attempts have run out, failed and due again after the backoff otherwise.
// retryAfter is the destination's Retry-After, or 0 when it sent none.
func (p Policy) Decide(attempts int, retryAfter time.Duration, now time.Time) (store.DeliveryStatus, time.Time) {
	if attempts >= p.MaxAttempts {
		return store.StatusDead, time.Time{}
	}
	return store.StatusFailed, now.Add(p.Delay(attempts, retryAfter))
}

// Delay returns the wait before the attempt that follows attempt number
// attempts: its backoff step with jitter, or the destination's Retry-After
// when that is longer. Retry-After is capped at the largest backoff step and
// at MaxRetryAfter, so a destination cannot park a delivery for longer than
// its own schedule would. The result is never negative.
func (p Policy) Delay(attempts int, retryAfter time.Duration) time.Duration {
	var d time.Duration
	if len(p.Backoff) > 0 {
		d = p.jitter(p.Backoff[min(max(attempts, 1), len(p.Backoff))-1])
	}
	if retryAfter > 0 {
		longest := time.Duration(0)
		for _, b := range p.Backoff {
			longest = max(longest, b)
		}
		d = max(d, min(retryAfter, longest, MaxRetryAfter))
	}
	return max(0, d)
}

func (p Policy) jitter(d time.Duration) time.Duration {
	if p.Jitter <= 0 || d <= 0 {
		return d
	}
	r := p.Rand
	if r == nil {
		r = rand.Float64
	}
	f := 1 + p.Jitter*(2*r()-1)
	return max(0, time.Duration(float64(d)*f))
}

// ParseRetryAfter reads a Retry-After header value, delay-seconds or an HTTP
// date, as a wait from now. It returns 0 for an empty, malformed or past
// value.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	// A number too large for int64 is still delay-seconds: ParseInt then
	// returns the largest (or smallest) int64 with ErrRange.
	if n, err := strconv.ParseInt(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if n <= 0 {
			return 0
		}
		// Anything past a day is capped by the policy anyway; stopping
		// here keeps the multiplication from overflowing.
		return time.Duration(min(n, int64(MaxRetryAfter/time.Second)+1)) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil || !t.After(now) {
		return 0
	}
	return t.Sub(now)
}

// PolicyFor returns the retry policy of a configured destination, push or
// pull. The config has applied its defaults already: what d holds is used
// as it is.
func PolicyFor(d config.Destination) Policy {
	p := Policy{MaxAttempts: d.MaxAttempts, Jitter: DefaultJitter}
	for _, b := range d.Backoff {
		p.Backoff = append(p.Backoff, b.Std())
	}
	return p
}
