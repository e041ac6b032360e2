package when

import (
	"errors"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, time.December, 4, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"", time.Time{}},
		{"now", now.UTC()},
		{"-90m", now.Add(-90 * time.Minute).UTC()},
		{"-3d", now.Add(-72 * time.Hour).UTC()},
		{"-2w", now.Add(-14 * 24 * time.Hour).UTC()},
		{"2026-12-01", time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)},
		{"2026-03-03T09:00:00+01:00", time.Date(2026, time.March, 3, 8, 0, 0, 0, time.UTC)},
	} {
		got, err := Parse(c.in, now)
		if err != nil || !got.Equal(c.want) || got.Location() != time.UTC {
			t.Errorf("Parse(%q) = %v, %v; want %v in UTC", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"yesterday", "-0s", "-", "-2x", "-0w", "2026-13-01"} {
		if _, err := Parse(bad, now); !errors.Is(err, ErrBad) {
			t.Errorf("Parse(%q) = %v, want ErrBad", bad, err)
		}
	}
}
