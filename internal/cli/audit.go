package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// runAudit prints the audit log: replays, backfills, purges, pauses,
// resumes and skips, newest first, with who asked.
func runAudit(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "audit")
	api := addAPIFlags(fs)
	since := fs.String("since", "", "only what was done at or after this time: "+timeHelp)
	limit := fs.Int("limit", 50, "rows to print, at most 1000")
	asJSON := fs.Bool("json", false, "print the API's JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	q, err := listQuery(*limit, nil, *since)
	if err != nil {
		return err
	}
	return readView(ctx, env, api, func(ctx context.Context, c *adminclient.Client) (adminwire.AuditLog, []byte, error) {
		return c.Audit(ctx, q)
	}, *asJSON, func(log adminwire.AuditLog) error {
		if len(log.Entries) == 0 {
			fmt.Fprintln(env.Stderr, "nothing in the audit log matches")
			return nil
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "AT\tWHO\tWHAT\tSELECTED\tRESULT")
		for _, e := range log.Entries {
			detail, _ := json.Marshal(e.Detail)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", stamp(e.At), e.Actor, e.Kind, detail, auditResult(e))
		}
		return tw.Flush()
	})
}

// auditResult says what an audited action did.
func auditResult(e adminwire.AuditEntry) string {
	dry := ""
	if e.DryRun {
		dry = " (dry run)"
	}
	switch e.Kind {
	case "replay":
		return fmt.Sprintf("%d matched, %d re-armed, %d in flight%s", e.Matched, e.Rearmed, e.InFlight, dry)
	case "backfill":
		return fmt.Sprintf("%d created%s", e.Created, dry)
	case "purge":
		return fmt.Sprintf("%d matched, %d purged%s", e.Matched, e.Purged, dry)
	}
	return "-"
}
