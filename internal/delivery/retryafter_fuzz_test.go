package delivery

import (
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fuzzRetryNow is the time a fuzzed Retry-After is read at.
var fuzzRetryNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// retryAfterCap is the longest wait ParseRetryAfter returns for
// delay-seconds: anything longer is capped by the policy anyway.
const retryAfterCap = MaxRetryAfter + time.Second

// FuzzParseRetryAfter checks the reader of a destination's Retry-After,
// whose value is whatever the destination sends: it never panics nor
// returns a negative wait; delay-seconds (digits only, RFC 9110) read as
// that many seconds, capped, however many digits they have; an HTTP date
// reads as the time until it; anything else is no wait. Whatever it
// returns, the policy holds a delivery back no longer than its longest
// backoff step.
func FuzzParseRetryAfter(f *testing.F) {
	f.Add("120")
	f.Fuzz(func(t *testing.T, v string) {
		got := ParseRetryAfter(v, fuzzRetryNow)
		if got < 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v, negative", v, got)
		}
		s := strings.TrimSpace(v)
		if s != "" && strings.Trim(s, "0123456789") == "" {
			n, _ := new(big.Int).SetString(s, 10)
			want := retryAfterCap
			if n.Cmp(big.NewInt(int64(retryAfterCap/time.Second))) < 0 {
				want = time.Duration(n.Int64()) * time.Second
			}
			if got != want {
				t.Fatalf("ParseRetryAfter(%q) = %v; want %v", v, got, want)
			}
		} else if at, err := http.ParseTime(s); err == nil {
			want := time.Duration(0)
			if at.After(fuzzRetryNow) {
				want = at.Sub(fuzzRetryNow)
			}
			if got != want {
				t.Fatalf("ParseRetryAfter(%q) = %v; want %v (the time until %v)", v, got, want, at)
			}
		} else if got > retryAfterCap {
			t.Fatalf("ParseRetryAfter(%q) = %v, longer than the cap %v", v, got, retryAfterCap)
		}

		p := Policy{MaxAttempts: 5, Backoff: []time.Duration{time.Second, time.Minute}, Jitter: DefaultJitter, Rand: func() float64 { return 0.999 }}
		if d := p.Delay(1, got); d < 0 || d > time.Minute {
			t.Fatalf("Delay after Retry-After %q (%v) = %v; want within [0, 1m]", v, got, d)
		}
	})
}
