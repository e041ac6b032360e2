package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

func runBackfill(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "backfill")
	api := addAPIFlags(fs)
	dest := fs.String("destination", "", "destination to give its missing deliveries (required)")
	since := fs.String("since", "", "start of the window, inclusive (required): "+timeHelp)
	until := fs.String("until", "now", "end of the window, exclusive")
	dryRun := fs.Bool("dry-run", false, "only print how many deliveries would be created")
	yes := fs.Bool("yes", false, "create them without asking")
	asJSON := fs.Bool("json", false, "print the API's JSON answer")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay backfill --destination NAME --since T [--until T] [--dry-run] [--yes]\n\n"+
			"Creates the deliveries a destination added later would have had for the events received in\n"+
			"the window, as its sources and types choose them. Running it again creates nothing new. It\n"+
			"first prints how many would be created and, on a terminal, asks before acting; without a\n"+
			"terminal it needs --yes. It then runs as a job on the relay, with its progress on stderr\n"+
			"(a bar on a terminal: count, rate, time left). Ctrl-C stops it between two pages and says\n"+
			"what was created; running it again creates the rest. A time is "+timeHelp+".\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dest == "" || *since == "" {
		return fmt.Errorf("%w: --destination and --since are required", errUsage)
	}
	req := adminwire.BackfillRequest{Destination: *dest}
	var err error
	if req.Since, req.Until, err = parseWindow(*since, *until); err != nil {
		return err
	}
	c, err := api.client(env, "admin")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, longTimeout)
	defer cancel()

	return guardedPost[adminwire.BackfillResult]{
		flagHint: "backfill",
		dryRun:   *dryRun, yes: *yes, asJSON: *asJSON,
		count: func(ctx context.Context, c *adminclient.Client) (adminwire.BackfillResult, []byte, error) {
			dry := req
			dry.DryRun = true
			return c.Backfill(ctx, dry)
		},
		preview: func(w io.Writer, dry adminwire.BackfillResult) (int64, string) {
			fmt.Fprintf(w, "%s of the window would get a delivery to %s\n", counted(dry.Matched, eventNoun, eventsNoun), *dest)
			return dry.Matched, fmt.Sprintf("Create %s to %s?", counted(dry.Matched, deliveryNoun, deliveriesNoun), *dest)
		},
		start: func(ctx context.Context, c *adminclient.Client) (adminwire.Job, error) {
			return c.StartBackfillJob(ctx, req)
		},
		unit: "deliveries",
		report: func(w io.Writer, j adminwire.Job) (adminwire.BackfillResult, error) {
			return reportBackfill(w, j, *dest)
		},
	}.run(ctx, env, c)
}
