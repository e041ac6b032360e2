package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// runEvents dispatches `hookrelay events list|show|tail|raw`.
func runEvents(ctx context.Context, env Env, args []string) error {
	return runVerb(ctx, env, "events", args, []verb{
		{"list", runEventsList},
		{"show", runEventsShow},
		{"tail", runEventsTail},
		{"raw", runEventsRaw},
	})
}

func runEventsList(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "events list")
	api := addAPIFlags(fs)
	source := fs.String("source", "", "only events of this source")
	typ := fs.String("type", "", "only events whose type matches this glob (invoice.*)")
	status := fs.String("status", "", "only events with a delivery in this status (pending, processing, failed, done, skipped, dead)")
	dest := fs.String("destination", "", "only events with a delivery to this destination")
	since := fs.String("since", "", "only events received at or after this time: "+timeHelp)
	until := fs.String("until", "", "only events received before this time")
	idPrefix := fs.String("id", "", "only events whose hookrelay id or provider event id starts with this (evt_1NQ, 01JT)")
	text := fs.String("text", "", "only events whose payload holds this text, exactly (cus_123); reads at most --scan events a page")
	scan := fs.Int("scan", 0, "with --text, the most events one page reads (default 10000, at most 100000)")
	limit := fs.Int("limit", 50, "events per page, at most 1000")
	cursor := fs.String("cursor", "", "the page after the one that printed this cursor")
	asJSON := fs.Bool("json", false, "print the API's JSON")
	idsOnly := fs.Bool("ids", false, "print only the events' ids, one a line: hookrelay events show $(hookrelay events list --limit 1 --ids)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay events list [filters] [--json | --ids]\n\nLists events, newest first. A time is "+timeHelp+".\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *limit < 1 || *limit > 1000 {
		return fmt.Errorf("%w: --limit %d: want 1 to 1000 events per page", errUsage, *limit)
	}
	if err := checkSearch(*idPrefix, *text, *scan); err != nil {
		return err
	}
	c, err := api.client(env, "read")
	if err != nil {
		return err
	}
	now := time.Now()
	q := url.Values{}
	for k, v := range map[string]string{"source": *source, "type": *typ, "status": *status, "destination": *dest, "cursor": *cursor,
		"q": *idPrefix, "text": *text} {
		if v != "" {
			q.Set(k, v)
		}
	}
	for name, v := range map[string]*string{"since": since, "until": until} {
		t, err := parseWhen(name, *v, now)
		if err != nil {
			return err
		}
		if t != "" {
			q.Set(name, t)
		}
	}
	if err := checkWindow(q.Get("since"), q.Get("until")); err != nil {
		return err
	}
	q.Set("limit", fmt.Sprint(*limit))
	if *scan > 0 {
		q.Set("scan", fmt.Sprint(*scan))
	}

	list, data, err := ask(ctx, c, func(ctx context.Context) (adminwire.EventList, []byte, error) { return c.Events(ctx, q) })
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(env.Stdout, data)
	}
	if *idsOnly {
		for _, e := range list.Events {
			fmt.Fprintln(env.Stdout, e.ID)
		}
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RECEIVED\tID\tSOURCE\tTYPE\tPROVIDER ID\tDELIVERIES")
	for _, e := range list.Events {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", stamp(e.ReceivedAt), e.ID, e.Source, dash(e.Type), e.ProviderEventID, deliveryStates(e.Deliveries))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if ts := list.TextSearch; ts != nil {
		fmt.Fprintln(env.Stderr, describeTextSearch(*ts))
	}
	if list.NextCursor != "" {
		fmt.Fprintf(env.Stderr, "more events: add --cursor %s\n", list.NextCursor)
	} else if len(list.Events) == 0 {
		fmt.Fprintln(env.Stderr, "no events match")
	}
	return nil
}

func deliveryStates(ds []adminwire.DeliveryState) string {
	if len(ds) == 0 {
		return "-"
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Destination + ":" + d.Status
	}
	return strings.Join(parts, " ")
}

func runEventsShow(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "events show")
	api := addAPIFlags(fs)
	asJSON := fs.Bool("json", false, "print the API's JSON")
	headers := fs.Bool("headers", false, "also print the headers each attempt sent and received (kept for failed push attempts)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay events show ID [--headers] [--json]\n\nPrints one event with its headers, its deliveries and their attempts.\n\n")
		fs.PrintDefaults()
	}
	id, c, err := eventReader(env, fs, api, args)
	if err != nil {
		return err
	}
	ev, data, err := ask(ctx, c, func(ctx context.Context) (adminwire.EventDetail, []byte, error) { return c.Event(ctx, id) })
	if err != nil {
		return eventError(id, err)
	}
	if *asJSON {
		return printJSON(env.Stdout, data)
	}
	return printEvent(env.Stdout, ev, *headers)
}

// printEvent prints an event, its deliveries and their attempts, with
// each attempt's headers when withHeaders is set.
func printEvent(w io.Writer, ev adminwire.EventDetail, withHeaders bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	slot := "none (the source verifies nothing)"
	if ev.SignatureSlot != nil {
		slot = fmt.Sprintf("secret slot %d", *ev.SignatureSlot)
	}
	for _, row := range [][2]string{
		{"id", ev.ID},
		{"source", ev.Source},
		{"type", dash(ev.Type)},
		{"provider id", fmt.Sprintf("%s (from %s)", ev.ProviderEventID, ev.IDOrigin)},
		{"received", stamp(ev.ReceivedAt)},
		{"occurred", stampPtr(ev.OccurredAt)},
		{"verified by", slot},
		{"content type", dash(ev.ContentType)},
		{"body", bodyRow(ev)},
	} {
		fmt.Fprintf(tw, "%s\t%s\n", row[0], row[1])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if p := ev.Purged; p != nil {
		fmt.Fprintf(w, "\npurged %s by %s: %s\n  its body and headers are gone; it is never delivered again\n", stamp(p.PurgedAt), p.PurgedBy, p.Reason)
	}
	fmt.Fprintln(w, "\nheaders")
	for _, k := range slices.Sorted(maps.Keys(ev.Headers)) {
		for _, v := range ev.Headers[k] {
			fmt.Fprintf(w, "  %s: %s\n", k, v)
		}
	}
	fmt.Fprintln(w, "\ndeliveries")
	if len(ev.Deliveries) == 0 {
		fmt.Fprintln(w, "  none: no destination subscribes to this event")
	}
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, d := range ev.Deliveries {
		fmt.Fprintf(tw, "  %s\t%s\tdelivery %d\tattempts %d\treplays %d\t%s\n", d.Destination, d.Status, d.ID, d.Attempts, d.ReplayCount, deliveryNote(d))
		printAttempts(tw, d, withHeaders)
	}
	return tw.Flush()
}

// bodyRow says how large the body is and how to read it, or that it was
// purged.
func bodyRow(ev adminwire.EventDetail) string {
	if ev.Purged != nil {
		return "purged"
	}
	return fmt.Sprintf("%d bytes (hookrelay events raw %s)", ev.BodySize, ev.ID)
}

// snippetShown bounds the response snippet printed with an attempt.
const snippetShown = 120

// printAttempts prints a delivery's attempts with their response
// snippets, under a heading for each replay round once it was replayed,
// and, when withHeaders is set, the headers each kept.
func printAttempts(w io.Writer, d adminwire.Delivery, withHeaders bool) {
	round := -1
	for _, a := range d.AttemptLog {
		if a.Round != round && d.ReplayCount > 0 {
			round = a.Round
			if round == 0 {
				fmt.Fprintln(w, "    first run\t\t\t\t\t")
			} else {
				fmt.Fprintf(w, "    replay %d\t\t\t\t\t\n", round)
			}
		}
		code := "-"
		if a.StatusCode != 0 {
			code = fmt.Sprint(a.StatusCode)
		}
		fmt.Fprintf(w, "    %s\t%s\t%dms\t%s\t%s\t\n", stamp(a.AttemptedAt), code, a.DurationMS, a.Error, shownSnippet(a.ResponseSnippet))
		if withHeaders {
			printAttemptHeaders(w, a)
		}
	}
}

// shownSnippet is a response snippet on one line, at most snippetShown
// characters, quoted so that its end is visible; "" when empty.
func shownSnippet(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > snippetShown {
		s = string(r[:snippetShown]) + "…"
	}
	return "response: " + strconv.Quote(s)
}

// deliveryNote says what comes next for a delivery, or how it ended.
func deliveryNote(d adminwire.Delivery) string {
	var parts []string
	switch {
	case d.FinishedAt != nil:
		parts = append(parts, "finished "+stamp(*d.FinishedAt))
	case d.LeaseUntil != nil:
		parts = append(parts, "leased until "+stamp(*d.LeaseUntil))
	case d.NextAttemptAt != nil:
		parts = append(parts, "due "+stamp(*d.NextAttemptAt))
	}
	if d.LastError != "" {
		parts = append(parts, "last error: "+d.LastError)
	}
	return strings.Join(parts, "; ")
}

func runEventsRaw(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "events raw")
	api := addAPIFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: hookrelay events raw ID > fixture.json\n\nWrites the stored body to standard output, byte for byte.\n\n")
		fs.PrintDefaults()
	}
	id, c, err := eventReader(env, fs, api, args)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	data, err := c.EventRaw(ctx, id)
	if err != nil {
		return eventError(id, c.explain(err))
	}
	_, err = env.Stdout.Write(data)
	return err
}

// oneID parses a verb's flags and its one event id, which may come before
// or after them.
func oneID(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		return "", fmt.Errorf("%w: want one event id, got %d arguments", errUsage, len(pos))
	}
	return pos[0], nil
}

// eventReader parses a verb's flags and its one event id, and makes the
// client, with the read role, that looks the event up.
func eventReader(env Env, fs *flag.FlagSet, api *apiFlags, args []string) (string, *apiClient, error) {
	id, err := oneID(fs, args)
	if err != nil {
		return "", nil, err
	}
	c, err := api.client(env, "read")
	if err != nil {
		return "", nil, err
	}
	return id, c, nil
}

// eventError adds what to do about an unknown event id.
func eventError(id string, err error) error {
	var ae *apiError
	if errors.As(err, &ae) && ae.status == http.StatusNotFound {
		return fmt.Errorf("no event %q: find ids with `hookrelay events list`", id)
	}
	return err
}

// stamp writes a time as RFC 3339 in UTC, to the second.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func stampPtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return stamp(*t)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
