package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

// Duration is a time.Duration written as a Go duration ("90s", "1h30m") that
// also accepts days: "30d", "1d12h".
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d the way ParseDuration reads it back, with whole days as "d".
func (d Duration) String() string {
	td := time.Duration(d)
	if td <= -day || td >= day {
		days := td / day
		rest := td % day
		if rest < 0 {
			rest = -rest
		}
		s := strconv.FormatInt(int64(days), 10) + "d"
		if rest != 0 {
			s += shortDuration(rest)
		}
		return s
	}
	return shortDuration(td)
}

// shortDuration drops the zero minutes and seconds time.Duration.String
// adds: "2h0m0s" becomes "2h", "1m0s" becomes "1m".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseDuration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

const day = 24 * time.Hour

// ParseDuration reads a Go duration that may also hold days ("d"), in any
// place among the other units: "30d", "1d12h", "1.5d".
func ParseDuration(s string) (Duration, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, errors.New("empty duration")
	}
	if !strings.Contains(in, "d") {
		d, err := time.ParseDuration(in)
		if err != nil {
			return 0, badDuration(s)
		}
		return Duration(d), nil
	}
	neg := false
	rest := in
	if rest[0] == '-' || rest[0] == '+' {
		neg, rest = rest[0] == '-', rest[1:]
	}
	var total time.Duration // days, then the rest, kept exact
	var others strings.Builder
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] == '.' || rest[i] >= '0' && rest[i] <= '9') {
			i++
		}
		j := i
		for j < len(rest) && !(rest[j] == '.' || rest[j] >= '0' && rest[j] <= '9') {
			j++
		}
		num, unit := rest[:i], rest[i:j]
		rest = rest[j:]
		if num == "" || unit == "" {
			return 0, badDuration(s)
		}
		if unit != "d" {
			others.WriteString(num + unit)
			continue
		}
		d, ok := daysDuration(num)
		if !ok || !addDuration(&total, d) {
			return 0, badDuration(s)
		}
	}
	if others.Len() > 0 {
		d, err := time.ParseDuration(others.String())
		if err != nil || !addDuration(&total, d) {
			return 0, badDuration(s)
		}
	}
	if neg {
		total = -total
	}
	return Duration(total), nil
}

func badDuration(s string) error {
	return fmt.Errorf("invalid duration %q (want e.g. 90s, 5m, 2h, 30d)", s)
}

// daysDuration converts a number of days, whole or decimal, to a duration.
func daysDuration(num string) (time.Duration, bool) {
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > int64(math.MaxInt64/day) {
			return 0, false
		}
		return time.Duration(n) * day, true
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*float64(day) >= math.MaxInt64 {
		return 0, false
	}
	return time.Duration(f * float64(day)), true
}

// addDuration adds d (>= 0) to *total unless the sum would overflow.
func addDuration(total *time.Duration, d time.Duration) bool {
	if d > math.MaxInt64-*total {
		return false
	}
	*total += d
	return true
}

// ByteSize is a number of bytes written as a plain number ("2048") or with a
// unit: B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).
type ByteSize int64

// Byte sizes.
const (
	KiB ByteSize = 1 << 10
	MiB ByteSize = 1 << 20
	GiB ByteSize = 1 << 30
)

var byteUnits = []struct {
	name string
	size ByteSize
}{
	{"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB},
	{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1},
}

// String formats b with the largest binary unit that divides it, or as a
// plain number.
func (b ByteSize) String() string {
	for _, u := range byteUnits[:3] {
		if b != 0 && b%u.size == 0 {
			return strconv.FormatInt(int64(b/u.size), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(b), 10)
}

// MarshalText implements encoding.TextMarshaler.
func (b ByteSize) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseByteSize.
func (b *ByteSize) UnmarshalText(text []byte) error {
	v, err := ParseByteSize(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// ParseByteSize reads "2048", "512KiB", "1MiB", "10MB" or "1.5 GiB". Units
// are not case-sensitive.
func ParseByteSize(s string) (ByteSize, error) {
	in := strings.TrimSpace(s)
	i := 0
	for i < len(in) && (in[i] == '.' || in[i] >= '0' && in[i] <= '9') {
		i++
	}
	num, unit := in[:i], strings.TrimSpace(in[i:])
	bad := fmt.Errorf("invalid size %q (want e.g. 2048, 512KiB, 1MiB, 10MB)", s)
	if num == "" {
		return 0, bad
	}
	mult := ByteSize(1)
	if unit != "" {
		found := false
		for _, u := range byteUnits {
			if strings.EqualFold(unit, u.name) {
				mult, found = u.size, true
				break
			}
		}
		if !found {
			return 0, bad
		}
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > math.MaxInt64/int64(mult) {
			return 0, bad
		}
		return ByteSize(n) * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*float64(mult) >= math.MaxInt64 {
		return 0, bad
	}
	return ByteSize(f * float64(mult)), nil
}

// Rate is a number of events per unit of time, written "100/s", "20/m",
// "1/h" or with any duration as the unit: "5/10s". The zero Rate is no limit.
type Rate struct {
	Events int
	Per    time.Duration
}

// IsZero reports whether r sets no limit.
func (r Rate) IsZero() bool { return r.Events == 0 && r.Per == 0 }

// Limit returns r as a token-bucket rate: rate.Inf for the zero Rate.
func (r Rate) Limit() rate.Limit {
	if r.IsZero() || r.Per <= 0 {
		return rate.Inf
	}
	return rate.Limit(float64(r.Events) / r.Per.Seconds())
}

// String formats r as ParseRate reads it; the zero Rate is "".
func (r Rate) String() string {
	if r.IsZero() {
		return ""
	}
	n := strconv.Itoa(r.Events)
	switch r.Per {
	case time.Second:
		return n + "/s"
	case time.Minute:
		return n + "/m"
	case time.Hour:
		return n + "/h"
	}
	return n + "/" + Duration(r.Per).String()
}

// MarshalText implements encoding.TextMarshaler.
func (r Rate) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseRate.
func (r *Rate) UnmarshalText(b []byte) error {
	v, err := ParseRate(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// ParseRate reads "N/s", "N/m", "N/h" or "N/DURATION" with N > 0 and the
// duration > 0. An empty string is the zero Rate.
func ParseRate(s string) (Rate, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return Rate{}, nil
	}
	bad := fmt.Errorf("invalid rate %q (want N/s, N/m or N/h with N > 0, e.g. 100/s)", s)
	num, unit, ok := strings.Cut(in, "/")
	if !ok {
		return Rate{}, bad
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n <= 0 {
		return Rate{}, bad
	}
	var per time.Duration
	switch strings.TrimSpace(unit) {
	case "s":
		per = time.Second
	case "m":
		per = time.Minute
	case "h":
		per = time.Hour
	default:
		d, err := ParseDuration(unit)
		if err != nil || d <= 0 {
			return Rate{}, bad
		}
		per = time.Duration(d)
	}
	return Rate{Events: n, Per: per}, nil
}
