package cli

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// failureExampleWidth is the most of a group's example error the table
// shows; --json has all of it.
const failureExampleWidth = 72

// runFailures prints the failed and dead deliveries grouped by
// destination, status and kind of failure, last seen first, and how to
// replay a group.
func runFailures(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "failures")
	api := addAPIFlags(fs)
	destination := fs.String("destination", "", "only the failures of this destination")
	asJSON := fs.Bool("json", false, "print the API's JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	q := url.Values{}
	if *destination != "" {
		q.Set("destination", *destination)
	}
	return readView(ctx, env, api, func(ctx context.Context, c *adminclient.Client) (adminwire.Failures, []byte, error) {
		return c.Failures(ctx, q)
	}, *asJSON, func(list adminwire.Failures) error {
		if len(list.Groups) == 0 {
			fmt.Fprintln(env.Stderr, "no failed or dead deliveries")
			return nil
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "LAST SEEN\tDESTINATION\tSTATUS\tKIND\tCOUNT\tFIRST SEEN\tEXAMPLE")
		for _, g := range list.Groups {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", stamp(g.LastSeen), g.Destination, g.Status, g.Kind, g.Count,
				stamp(g.FirstSeen), dash(clip(failureExample(g), failureExampleWidth)))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if g := list.Groups[0]; g.ReceivedSince != nil && g.ReceivedUntil != nil {
			fmt.Fprintf(env.Stdout, "\nReplay a group by its destination, status and the window of its events; replay counts them and asks first:\n"+
				"  hookrelay replay --destination %s --status %s --since %s --until %s\n",
				g.Destination, g.Status, g.ReceivedSince.UTC().Format(time.RFC3339Nano), g.ReceivedUntil.UTC().Format(time.RFC3339Nano))
		}
		return nil
	})
}

// failureExample is what a group's example recorded: its error, or its
// status code when it has no error.
func failureExample(g adminwire.FailureGroup) string {
	if g.ExampleError == "" && g.ExampleStatusCode != 0 {
		return fmt.Sprintf("status %d", g.ExampleStatusCode)
	}
	return g.ExampleError
}

// clip cuts s to at most n characters, marking the cut with "…", and
// keeps it on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
