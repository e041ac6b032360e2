package signature

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// parseUnix reads a unix time in whole seconds written in decimal digits
// only: no sign, no fraction, at most 12 digits.
func parseUnix(s string) (time.Time, bool) {
	if s == "" || len(s) > 12 {
		return time.Time{}, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return time.Time{}, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(n, 0).UTC(), true
}

// formatUnix writes t the way parseUnix reads it.
func formatUnix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// verdict turns the outcome of a signature check into the Result and error
// Verify returns. The signature is judged first: a forged request is a
// mismatch whatever its timestamp, and only a genuine one can be stale.
// hasTS tells whether ts was read from the request.
func verdict(slot int, matched bool, ts time.Time, hasTS bool, now time.Time, tolerance time.Duration) (Result, error) {
	res := Result{Slot: store.NoSlot}
	if hasTS {
		res.Timestamp, res.HasTimestamp, res.Skew = ts, true, now.Sub(ts)
	}
	if !matched {
		return res, ErrMismatch
	}
	// A stale request still names the secret that signed it.
	res.Slot = slot
	if hasTS && (res.Skew > tolerance || res.Skew < -tolerance) {
		return res, fmt.Errorf("check timestamp: skew %s beyond %s: %w", res.Skew, tolerance, ErrStale)
	}
	return res, nil
}

// failed is the Result and error of a request rejected before its
// signature could be compared.
func failed(err error) (Result, error) { return Result{Slot: store.NoSlot}, err }

// bodySigned is untimed for a scheme whose signature covers the body
// alone: a match carries mac, the decoded signature, as
// Result.BodySignature.
func bodySigned(slot int, mac []byte, matched bool) (Result, error) {
	res, err := untimed(slot, matched)
	if err == nil {
		res.BodySignature = mac
	}
	return res, err
}

// untimed is verdict for a scheme without a timestamp.
func untimed(slot int, matched bool) (Result, error) {
	return verdict(slot, matched, time.Time{}, false, time.Time{}, 0)
}
