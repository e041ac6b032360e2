package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// runJobs dispatches `hookrelay jobs [list|cancel]`; without a verb it
// lists.
func runJobs(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || (strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help") {
		return runJobsList(ctx, env, args)
	}
	return runVerb(ctx, env, "jobs", args, []verb{
		{"list", runJobsList},
		{"cancel", runJobsCancel},
	})
}

func runJobsList(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "jobs list")
	api := addAPIFlags(fs)
	asJSON := fs.Bool("json", false, "print the API's JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return readView(ctx, env, api, func(ctx context.Context, c *adminclient.Client) (adminwire.JobList, []byte, error) {
		return c.Jobs(ctx)
	}, *asJSON, func(list adminwire.JobList) error {
		if len(list.Jobs) == 0 {
			fmt.Fprintln(env.Stdout, "no jobs: this relay process has run no replay or backfill since it started")
			return nil
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "JOB\tKIND\tSTATE\tDONE\tRATE\tSTARTED\tBY\tUP TO EVENT")
		for _, j := range list.Jobs {
			state := j.State
			if j.Error != "" {
				state += ": " + j.Error
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d of %d\t%.0f/s\t%s\t%s\t%s\n", j.ID, j.Kind, state, j.Done, j.Total, j.RatePerSecond,
				stampPtr(&j.StartedAt), j.Actor, dash(j.LastEventID))
		}
		return tw.Flush()
	})
}

// runJobsCancel cancels a job and waits until it has stopped between two
// batches, then says how far it went.
func runJobsCancel(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "jobs cancel")
	api := addAPIFlags(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want one job id (hookrelay jobs lists them), got %d arguments", errUsage, len(pos))
	}
	c, err := api.client(env, "admin")
	if err != nil {
		return err
	}
	j, err := cancelJob(ctx, c.Client, adminwire.Job{ID: pos[0], Kind: "job"})
	if err != nil {
		return usageIfRefused(c.explain(err))
	}
	fmt.Fprintf(env.Stdout, "%s %s is %s: %d of %d done, the selected events up to %s\n", j.Kind, j.ID, j.State, j.Done, j.Total, dash(j.LastEventID))
	return nil
}
