package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/when"
)

// parseArgs parses flags placed before, between or after positional
// arguments (`events show ID --json`) and returns the positional ones.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseQuietly(fs, args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %w", errUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// stringList is a flag that may be repeated.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// timeHelp describes the times the API commands accept.
const timeHelp = when.Help

// parseWhen reads a time flag (see parseWhenTime) and returns it as RFC 3339
// in UTC, or "" for an empty value.
func parseWhen(name, v string, now time.Time) (string, error) {
	t, err := parseWhenTime(name, v, now)
	if err != nil || t.IsZero() {
		return "", err
	}
	return t.UTC().Format(time.RFC3339Nano), nil
}

// parseWhenTime reads a time flag with when.Parse. An empty value is the
// zero time.
func parseWhenTime(name, v string, now time.Time) (time.Time, error) {
	t, err := when.Parse(v, now)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: --%s %q: want %s", errUsage, name, v, timeHelp)
	}
	return t, nil
}

// checkWindow refuses a window that cannot hold anything: since at or
// after until. Both are RFC 3339 or empty.
func checkWindow(since, until string) error {
	if since == "" || until == "" {
		return nil
	}
	s, _ := time.Parse(time.RFC3339Nano, since)
	u, _ := time.Parse(time.RFC3339Nano, until)
	if !s.Before(u) {
		return fmt.Errorf("%w: --since %s is not before --until %s: the window holds nothing (swap them?)", errUsage, since, until)
	}
	return nil
}

// parseWindow reads --since and --until as parseWhen does, both against the
// same now, and refuses a window that cannot hold anything.
func parseWindow(since, until string) (s, u string, err error) {
	now := time.Now()
	if s, err = parseWhen("since", since, now); err != nil {
		return "", "", err
	}
	if u, err = parseWhen("until", until, now); err != nil {
		return "", "", err
	}
	if err := checkWindow(s, u); err != nil {
		return "", "", err
	}
	return s, u, nil
}
