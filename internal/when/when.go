// Package when reads the times an operator writes: "now", a date, an RFC
// 3339 time, or a duration ago ("-2h", "-3d", "-2w"). The CLI, the admin
// API and the console read them alike.
package when

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
)

// Help describes the times Parse reads.
const Help = "now, a date (2026-12-01, midnight UTC), an RFC 3339 time (2026-03-03T09:00:00Z) or -DURATION for that long ago (-90m, -2h, -3d, -2w)"

// ErrBad is what Parse returns for a text it cannot read.
var ErrBad = errors.New("want " + Help)

// Parse reads v: "now", a date (midnight UTC), an RFC 3339 time, or "-"
// and a duration (s, m, h, d or w) meaning that long before now. An empty
// v is the zero time. The result is in UTC.
func Parse(v string, now time.Time) (time.Time, error) {
	switch {
	case v == "":
		return time.Time{}, nil
	case v == "now":
		return now.UTC(), nil
	case strings.HasPrefix(v, "-"):
		d, err := parseAgo(v[1:])
		if err != nil || d <= 0 {
			return time.Time{}, fmt.Errorf("%q: %w", v, ErrBad)
		}
		return now.Add(-d).UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: %w", v, ErrBad)
	}
	return t.UTC(), nil
}

// parseAgo reads a duration as the config writes them, with weeks ("2w")
// added.
func parseAgo(s string) (time.Duration, error) {
	if w, ok := strings.CutSuffix(s, "w"); ok {
		n, err := strconv.Atoi(w)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("bad number of weeks %q", s)
		}
		return time.Duration(n) * 7 * 24 * time.Hour, nil
	}
	d, err := config.ParseDuration(s)
	return d.Std(), err
}
