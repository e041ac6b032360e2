package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// errCancelled is the answer "no" to a confirmation.
var errCancelled = errors.New("cancelled: nothing was changed")

func runReplay(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "replay")
	api := addAPIFlags(fs)
	var ids stringList
	fs.Var(&ids, "id", "replay this event; repeat for more")
	source := fs.String("source", "", "replay the events of this source")
	typ := fs.String("type", "", "replay the events whose type matches this glob (customer.subscription.*)")
	status := fs.String("status", "", "replay only deliveries in this status (failed, dead, done, ...)")
	dest := fs.String("destination", "", "replay only deliveries to this destination")
	since := fs.String("since", "", "replay events received at or after this time: "+timeHelp)
	until := fs.String("until", "", "replay events received before this time")
	dryRun := fs.Bool("dry-run", false, "only print how many deliveries would be re-armed")
	yes := fs.Bool("yes", false, "re-arm without asking")
	asJSON := fs.Bool("json", false, "print the API's JSON answer")
	maxBatch := fs.Int("max-batch", 0, "re-arm at most this many deliveries per transaction (default: the relay's own, about a hundredth of the total); smaller is gentler on ingest")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay replay [--id ID]... [filters] [--dry-run] [--yes]\n\n"+
			"Re-arms the deliveries of the events chosen by id or filter: they are delivered again, due now,\n"+
			"with their attempts reset. Deliveries in flight right now are left alone. It first prints how\n"+
			"many deliveries match, and how many of them are to handler destinations, whose handlers run\n"+
			"again and whose effects apply again. On a terminal it then asks before acting; without one it\n"+
			"needs --yes.\n"+
			"It then runs as a job on the relay, with its progress on stderr (a bar on a terminal: count,\n"+
			"rate, time left). Ctrl-C stops it between two batches and says exactly what was re-armed: the\n"+
			"deliveries of the selected events up to the one it names, none after.\n"+
			"A time is "+timeHelp+".\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	req := adminwire.ReplayRequest{Filter: adminwire.Filter{IDs: ids, Source: *source, Type: *typ, Status: *status, Destination: *dest}}
	var err error
	if req.Since, req.Until, err = parseWindow(*since, *until); err != nil {
		return err
	}
	if *maxBatch < 0 {
		return fmt.Errorf("%w: --max-batch %d: want a positive number of deliveries", errUsage, *maxBatch)
	}
	if len(ids) == 0 && *source == "" && *typ == "" && *status == "" && *dest == "" && *since == "" && *until == "" {
		return fmt.Errorf("%w: choose what to replay: --id, or a filter (--source, --type, --status, --destination, --since, --until)", errUsage)
	}
	c, err := api.client(env, "admin")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, longTimeout)
	defer cancel()

	return guardedPost[adminwire.ReplayResult]{
		flagHint: "replay",
		dryRun:   *dryRun, yes: *yes, asJSON: *asJSON,
		count: func(ctx context.Context, c *adminclient.Client) (adminwire.ReplayResult, []byte, error) {
			dry := req
			dry.DryRun = true
			return c.Replay(ctx, dry)
		},
		preview: func(w io.Writer, dry adminwire.ReplayResult) (int64, string) {
			would := dry.Matched - dry.InFlight
			fmt.Fprintf(w, "%s %s: %d would be re-armed, %d in flight left alone\n", counted(dry.Matched, deliveryNoun, deliveriesNoun), verbAgreeing(dry.Matched, "matches", "match"), would, dry.InFlight)
			if dry.Warning != "" {
				fmt.Fprintln(w, dry.Warning) // handler deliveries: their effects apply again
			}
			return would, fmt.Sprintf("Re-arm %s?", counted(would, deliveryNoun, deliveriesNoun))
		},
		start: func(ctx context.Context, c *adminclient.Client) (adminwire.Job, error) {
			return c.StartReplayJob(ctx, adminwire.JobReplayRequest{ReplayRequest: req, MaxBatch: *maxBatch})
		},
		unit: "deliveries", report: reportReplay,
	}.run(ctx, env, c)
}

// printResult prints an API answer when --json asked for it.
func printResult(w io.Writer, asJSON bool, data []byte) error {
	if !asJSON {
		return nil
	}
	return printJSON(w, data)
}
