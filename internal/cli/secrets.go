package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

func runSecrets(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "secrets")
	api := addAPIFlags(fs)
	asJSON := fs.Bool("json", false, "print the API's JSON")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay secrets [--json]\n\n"+
			"Prints, per source and secret slot, when the slot last verified an event and how many it\n"+
			"verified in the last 24 hours, and which old slots a rotation may now remove. Secrets are\n"+
			"never shown.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return readView(ctx, env, api, func(ctx context.Context, c *adminclient.Client) (adminwire.Secrets, []byte, error) {
		return c.Secrets(ctx)
	}, *asJSON, func(s adminwire.Secrets) error {
		return printSecrets(env.Stdout, s, time.Now())
	})
}

// printSecrets writes the slot table, then one line of advice per slot that
// a rotation may remove.
func printSecrets(w io.Writer, s adminwire.Secrets, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tSLOT\tSTATE\tLAST VERIFIED\tLAST 24H")
	for _, src := range s.Sources {
		for _, sl := range src.Slots {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", src.Source, slotName(sl), slotState(sl), lastUsed(sl, now, s.KeptDays), sl.VerifiedLastDay)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, src := range s.Sources {
		for _, line := range rotationAdvice(src, now, s.KeptDays) {
			fmt.Fprintf(w, "%s: %s\n", src.Source, line)
		}
	}
	return nil
}

// slotName is a slot's number, or, for a secret the config no longer
// lists, the start of its fingerprint.
func slotName(sl adminwire.SlotStatus) string {
	if sl.Slot < 0 {
		return "- (" + sl.Secret + ")"
	}
	return strconv.Itoa(sl.Slot)
}

func slotState(sl adminwire.SlotStatus) string {
	switch {
	case !sl.Configured:
		return "removed"
	case !sl.Active:
		return "empty"
	}
	return "active"
}

// lastUsed says when a slot last verified, as an age.
func lastUsed(sl adminwire.SlotStatus, now time.Time, keptDays int) string {
	if sl.LastVerifiedAt == nil {
		return "not in " + strconv.Itoa(keptDays) + " days"
	}
	return ago(now.Sub(*sl.LastVerifiedAt))
}

// ago writes an age the way an operator says it.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d minutes ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

// rotationAdvice names the active slots that verified nothing in the last
// day while another active slot of the source did: the provider no longer
// signs with them, so the rotation may finish by removing them.
func rotationAdvice(src adminwire.SourceSecrets, now time.Time, keptDays int) []string {
	inUse := false
	for _, sl := range src.Slots {
		if sl.Active && sl.VerifiedLastDay > 0 {
			inUse = true
		}
	}
	if !inUse {
		return nil
	}
	var out []string
	for _, sl := range src.Slots {
		if sl.Active && sl.VerifiedLastDay == 0 {
			when := "last used " + lastUsed(sl, now, keptDays)
			if sl.LastVerifiedAt == nil {
				when = "unused for " + strconv.Itoa(keptDays) + " days"
			}
			out = append(out, fmt.Sprintf("slot %d %s: rotation may finish (remove it from the source's secrets, then reload)", sl.Slot, when))
		}
	}
	return out
}
