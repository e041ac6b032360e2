package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/config"
)

// parseArgs parses flags placed before, between or after positional
// arguments (`events show ID --json`) and returns the positional ones.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
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
const timeHelp = "an RFC 3339 time (2026-03-03T09:00:00Z, 2026-03-03T10:00:00+01:00) or -DURATION for that long ago (-2h, -90m, -3d)"

// parseWhen reads a time flag: RFC 3339, or "-" and a duration meaning
// that long before now. It returns the time as RFC 3339 in UTC, or "" for
// an empty value.
func parseWhen(name, v string, now time.Time) (string, error) {
	if v == "" {
		return "", nil
	}
	if ago, ok := strings.CutPrefix(v, "-"); ok {
		d, err := config.ParseDuration(ago)
		if err != nil || d <= 0 {
			return "", fmt.Errorf("%w: --%s %q: want %s", errUsage, name, v, timeHelp)
		}
		return now.Add(-d.Std()).UTC().Format(time.RFC3339Nano), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return "", fmt.Errorf("%w: --%s %q: want %s", errUsage, name, v, timeHelp)
	}
	return t.UTC().Format(time.RFC3339Nano), nil
}
