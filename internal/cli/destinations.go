package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// runDestinations dispatches `hookrelay destinations [list|pause|resume|skip]`;
// without a verb it lists.
func runDestinations(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || (len(args[0]) > 0 && args[0][0] == '-' && args[0] != "-h" && args[0] != "--help") {
		return runDestinationsList(ctx, env, args)
	}
	return runVerb(ctx, env, "destinations", args, []verb{
		{"list", runDestinationsList},
		{"pause", func(ctx context.Context, env Env, args []string) error { return runPause(ctx, env, args, true) }},
		{"resume", func(ctx context.Context, env Env, args []string) error { return runPause(ctx, env, args, false) }},
		{"skip", runSkip},
	})
}

func runDestinationsList(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "destinations list")
	api := addAPIFlags(fs)
	asJSON := fs.Bool("json", false, "print the API's JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return readView(ctx, env, api, func(ctx context.Context, c *adminclient.Client) (adminwire.Destinations, []byte, error) {
		return c.Destinations(ctx)
	}, *asJSON, func(list adminwire.Destinations) error {
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "DESTINATION\tKIND\tURL\tSTATE\tBACKLOG\tOLDEST PENDING\tDEAD\tLAST ERROR")
		for _, d := range list.Destinations {
			state := "delivering"
			if d.Paused {
				state = "paused since " + stampPtr(d.PausedAt)
			}
			lastErr := "-"
			if d.LastError != "" {
				lastErr = stampPtr(d.LastErrorAt) + " " + d.LastError
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%d\t%s\n", d.Name, d.Kind, dash(d.URL), state, d.Backlog, age(d.OldestPendingAgeSeconds), d.Dead, lastErr)
		}
		return tw.Flush()
	})
}

// age writes an age in seconds for a table: "-" for none.
func age(secs float64) string {
	switch {
	case secs >= 1:
		return time.Duration(secs * float64(time.Second)).Round(time.Second).String()
	case secs > 0:
		return "<1s"
	}
	return "-"
}

// runPause pauses or resumes one destination.
func runPause(ctx context.Context, env Env, args []string, pause bool) error {
	verb := map[bool]string{true: "pause", false: "resume"}[pause]
	fs := newFlagSet(env, "destinations "+verb)
	api := addAPIFlags(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want one destination name, got %d arguments", errUsage, len(pos))
	}
	c, err := api.client(env, "admin")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	call := c.Resume
	if pause {
		call = c.Pause
	}
	res, _, err := call(ctx, pos[0])
	if err != nil {
		return usageIfRefused(c.explain(err))
	}
	if pause {
		fmt.Fprintf(env.Stdout, "paused %s: its deliveries wait, nothing is dropped (hookrelay destinations resume %s)\n", res.Destination, res.Destination)
	} else {
		fmt.Fprintf(env.Stdout, "resumed %s: its waiting deliveries go out now\n", res.Destination)
	}
	return nil
}

// runSkip marks one stuck delivery skipped.
func runSkip(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "destinations skip")
	api := addAPIFlags(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want one delivery id (hookrelay events show lists them), got %d arguments", errUsage, len(pos))
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("%w: delivery id %q: want the number `hookrelay events show --json` gives as a delivery's id", errUsage, pos[0])
	}
	c, err := api.client(env, "admin")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	d, _, err := c.Skip(ctx, id)
	if err != nil {
		return usageIfRefused(c.explain(err))
	}
	fmt.Fprintf(env.Stdout, "skipped delivery %d to %s: it is not tried again (hookrelay replay --id EVENT_ID --destination %s sends it again)\n", d.ID, d.Destination, d.Destination)
	return nil
}

// usageIfRefused makes an API's 400 or 404 a usage error: nothing was
// done, and what was asked names something that is not there.
func usageIfRefused(err error) error {
	var ae *apiError
	if errors.As(err, &ae) && (ae.status == http.StatusBadRequest || ae.status == http.StatusNotFound) {
		return fmt.Errorf("%w: %s", errUsage, ae.msg)
	}
	return err
}
