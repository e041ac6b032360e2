package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// Timings of `hookrelay events tail`.
const (
	// tailEvery is how often tail asks for new events.
	tailEvery = time.Second
	// tailOverlap is how far back each poll looks again: an event whose
	// commit landed after a later one's is still printed, once.
	tailOverlap = 30 * time.Second
)

// runEventsTail prints events as they arrive, oldest first, one line each,
// until SIGINT or SIGTERM.
func runEventsTail(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "events tail")
	api := addAPIFlags(fs)
	source := fs.String("source", "", "only events of this source")
	typ := fs.String("type", "", "only events whose type matches this glob (invoice.*)")
	since := fs.String("since", "", "also print the events received since this time first: "+timeHelp)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	from, err := parseWhenTime("since", *since, time.Now())
	if err != nil {
		return err
	}
	if from.IsZero() {
		from = time.Now()
	}
	c, err := api.client(env, "read")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	q := url.Values{"limit": {"1000"}}
	for k, v := range map[string]string{"source": *source, "type": *typ} {
		if v != "" {
			q.Set(k, v)
		}
	}
	floor := from                     // nothing received before it is printed
	printed := map[string]time.Time{} // event id → received_at, within the overlap
	fmt.Fprintln(env.Stderr, "waiting for events (Ctrl-C to stop)")
	for {
		q.Set("since", from.Add(-tailOverlap).UTC().Format(time.RFC3339Nano))
		list, _, err := ask(ctx, c, func(ctx context.Context) (adminwire.EventList, []byte, error) { return c.Events(ctx, q) })
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		slices.Reverse(list.Events) // oldest first
		for _, e := range list.Events {
			if _, seen := printed[e.ID]; seen || e.ReceivedAt.Before(floor) {
				continue
			}
			printed[e.ID] = e.ReceivedAt
			from = maxTime(from, e.ReceivedAt)
			fmt.Fprintf(env.Stdout, "%s  %s  %s  %s  %s  %s\n", stamp(e.ReceivedAt), e.ID, e.Source, dash(e.Type), e.ProviderEventID, deliveryStates(e.Deliveries))
		}
		for id, at := range printed {
			if at.Before(from.Add(-2 * tailOverlap)) {
				delete(printed, id)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(tailEvery):
		}
	}
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
