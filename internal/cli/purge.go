package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

func runPurge(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "purge")
	api := addAPIFlags(fs)
	var ids stringList
	fs.Var(&ids, "id", "purge this event (hookrelay's id); repeat for more")
	source := fs.String("source", "", "with --provider-id: the event's source; with --path: only this source's events")
	providerID := fs.String("provider-id", "", "purge the event the provider sent under this id (with --source)")
	path := fs.String("path", "", "purge the events whose JSON body has --value at this dotted path (data.object.customer)")
	value := fs.String("value", "", "the value looked for at --path: a string, a number or true/false, as text")
	since := fs.String("since", "", "with --path: events received at or after this time: "+timeHelp)
	until := fs.String("until", "", "with --path: events received before this time")
	reason := fs.String("reason", "", "why these events are purged (required; kept with each tombstone and in the audit log)")
	dryRun := fs.Bool("dry-run", false, "only print how many events would be purged")
	yes := fs.Bool("yes", false, "purge without asking")
	asJSON := fs.Bool("json", false, "print the API's JSON answer")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay purge (--id ID... | --source S --provider-id P | --path P --value V [--source S] [--since T] [--until T]) --reason TEXT [--dry-run] [--yes]\n\n"+
			"Erases the payload of events: their body, headers and response snippets are deleted for good;\n"+
			"their ids and times stay, with a tombstone saying when, by whom and why. Their deliveries that\n"+
			"are still due end as purged: they are never delivered again, and cannot be replayed. It first\n"+
			"prints how many events match and, on a terminal, asks before acting; without a terminal it\n"+
			"needs --yes. A time is "+timeHelp+".\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	req := adminwire.PurgeRequest{IDs: ids, Source: *source, ProviderEventID: *providerID, Path: *path, Value: *value, Reason: *reason}
	if err := checkPurgeFlags(req, *since, *until); err != nil {
		return err
	}
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

	return runPurgeCalls(ctx, env, c, req, *dryRun, *yes, *asJSON)
}

// runPurgeCalls makes the purge first as a dry run whose count it prints,
// then, unless --dry-run or nothing matches, after a confirmation, for
// real. A purge is one call, not a job: its batches are small and it
// answers when they are done. The lines go to stdout, or to stderr when
// --json puts the API's answer on stdout.
func runPurgeCalls(ctx context.Context, env Env, c *apiClient, req adminwire.PurgeRequest, dryRun, yes, asJSON bool) error {
	out := env.Stdout
	if asJSON {
		out = env.Stderr
	}
	req.DryRun = true
	dry, data, err := c.Purge(ctx, req)
	if err != nil {
		return usageIfRefused(c.explain(err)) // refused before anything was done
	}
	fmt.Fprintf(out, "%s %s%s and would be purged%s\n", counted(dry.Matched, eventNoun, eventsNoun), verbAgreeing(dry.Matched, "matches", "match"), scanned(dry), alreadyPurged(dry))
	if dryRun || dry.Matched == 0 {
		return printResult(env.Stdout, asJSON, data)
	}
	if err := confirm(env, yes, fmt.Sprintf("Purge %s? This cannot be undone.", counted(dry.Matched, eventNoun, eventsNoun)), "purge"); err != nil {
		return err
	}
	req.DryRun = false
	res, data, err := c.Purge(ctx, req)
	if err != nil {
		return c.explain(err)
	}
	fmt.Fprintf(out, "purged %s (%d matched); %s ended as purged%s\n", counted(res.Purged, eventNoun, eventsNoun), res.Matched, counted(res.DeliveriesEnded, deliveryNoun, deliveriesNoun), alreadyPurged(res))
	if res.FollowUpSQL != "" {
		fmt.Fprintf(out, "the purged bytes stay in the database's files until you run, at a quiet time (it locks the tables while it runs):\n  %s\n", res.FollowUpSQL)
	}
	return printResult(env.Stdout, asJSON, data)
}

// checkPurgeFlags refuses a command line that names no selector, or more
// than one, or no reason, before anything is sent.
func checkPurgeFlags(req adminwire.PurgeRequest, since, until string) error {
	n := 0
	for _, set := range []bool{len(req.IDs) > 0, req.ProviderEventID != "", req.Path != "" || req.Value != ""} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return fmt.Errorf("%w: choose what to purge: --id; or --source with --provider-id; or --path with --value (and --source, --since, --until)", errUsage)
	case strings.TrimSpace(req.Reason) == "":
		return fmt.Errorf("%w: --reason is required: say why these events are purged", errUsage)
	case req.ProviderEventID != "" && req.Source == "":
		return fmt.Errorf("%w: --provider-id needs --source", errUsage)
	case (req.Path == "") != (req.Value == ""):
		return fmt.Errorf("%w: --path and --value go together", errUsage)
	case req.Path == "" && (since != "" || until != ""):
		return fmt.Errorf("%w: --since and --until bound a --path search only", errUsage)
	case len(req.IDs) > 0 && req.Source != "":
		return fmt.Errorf("%w: --id selects events by itself: leave out --source", errUsage)
	}
	return nil
}

// scanned says how many bodies a path search read.
func scanned(r adminwire.PurgeResult) string {
	if r.Scanned == 0 {
		return ""
	}
	return fmt.Sprintf(" (of %s searched)", counted(r.Scanned, eventNoun, eventsNoun))
}

// alreadyPurged mentions the events named that were purged before.
func alreadyPurged(r adminwire.PurgeResult) string {
	if r.AlreadyPurged == 0 {
		return ""
	}
	return fmt.Sprintf("; %d already purged before", r.AlreadyPurged)
}
