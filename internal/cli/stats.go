package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

func runStats(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "stats")
	api := addAPIFlags(fs)
	asJSON := fs.Bool("json", false, "print the API's JSON")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay stats [--json]\n\n"+
			"Prints each destination's deliveries by status, the age of its oldest due one and how long\n"+
			"it has been paused (hookrelay destinations pause), and each source's ingest counts.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return readView(ctx, env, api, func(ctx context.Context, c *adminclient.Client) (adminwire.Stats, []byte, error) { return c.Stats(ctx) }, *asJSON, func(s adminwire.Stats) error {
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "DESTINATION\tPENDING\tPROCESSING\tFAILED\tDONE\tSKIPPED\tDEAD\tPURGED\tOLDEST PENDING\tPAUSED")
		for _, name := range slices.Sorted(maps.Keys(s.Destinations)) {
			d := s.Destinations[name]
			paused := "-"
			if p, ok := s.Paused[name]; ok {
				paused = "for " + age(p.PausedForSeconds)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", name, d.Pending, d.Processing, d.Failed, d.Done, d.Skipped, d.Dead, d.Purged, age(d.OldestPendingAgeSeconds), paused)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout)
		tw = tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SOURCE\tRECEIVED\tDUPLICATES\tREJECTED\tPROVIDER LAG (MEDIAN, MAX)")
		for _, name := range slices.Sorted(maps.Keys(s.Sources)) {
			src := s.Sources[name]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", name, src.Received, src.Duplicates, src.Rejected, providerLag(src))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout)
		if s.Runner == nil {
			_, err := fmt.Fprintln(env.Stdout, "fleet runner: none holds the lease now")
			return err
		}
		_, err := fmt.Fprintf(env.Stdout, "fleet runner: %s, for %s\n", s.Runner.Node, age(s.Runner.ForSeconds))
		return err
	})
}

// providerLag writes a source's provider lag, or "-" when its scheme gives
// no provider time.
func providerLag(src adminwire.SourceStats) string {
	if src.ProviderLagSeconds == nil || src.ProviderLagMaxSeconds == nil {
		return "-"
	}
	return lagText(*src.ProviderLagSeconds) + ", " + lagText(*src.ProviderLagMaxSeconds)
}

// lagText writes a lag for a person: milliseconds under a second, tenths
// of a second under a minute, then hours, minutes and seconds, and whole
// days from two days on (an event replayed from a fixture is years old).
func lagText(seconds float64) string {
	d := time.Duration(seconds * float64(time.Second))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < 48*time.Hour:
		return d.Round(time.Second).String()
	default:
		return fmt.Sprintf("%dd", int64(d/(24*time.Hour)))
	}
}
