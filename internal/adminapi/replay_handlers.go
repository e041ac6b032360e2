package adminapi

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// A replay re-runs the handlers of the handler destinations whose
// deliveries it re-arms, and so applies their effects again: exactly once
// holds per delivery, and a replay is a deliberate new one. A dry run
// says how many of the deliveries it would re-arm that is, so that the
// confirmations of the API, the CLI and the console can say it plainly.

// handlerReplays counts, by destination, the deliveries of filter's
// selection that a replay would re-arm (those not in flight) and whose
// destination is a handler destination; a destination with none is left
// out. It counts with a dry run of the store's own per destination, so
// that it selects what the replay would.
func (s *Service) handlerReplays(ctx context.Context, filter store.EventFilter, now time.Time) (map[string]int64, error) {
	names, err := s.handlerNames(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, name := range names {
		if filter.Destination != "" && filter.Destination != name {
			continue
		}
		f := filter
		f.Destination = name
		res, err := s.store.Replay(ctx, store.ReplayRequest{Filter: f, DryRun: true, NoAuditRow: true, Now: now})
		if err != nil {
			return nil, fmt.Errorf("count the deliveries of handler destination %s: %w", name, err)
		}
		if n := res.Matched - res.InFlight; n > 0 {
			out[name] = n
		}
	}
	return out, nil
}

// handlerNames returns the names of the handler destinations, sorted: the
// config's and those the replicas that have their code registered, which
// a replica without that code routes to as well.
func (s *Service) handlerNames(ctx context.Context) ([]string, error) {
	var names []string
	for _, d := range s.cfg.Destinations {
		if d.Handler {
			names = append(names, d.Name)
		}
	}
	registered, err := s.store.HandlerDestinations(ctx)
	if err != nil {
		return nil, fmt.Errorf("read handler destinations: %w", err)
	}
	for _, h := range registered {
		names = append(names, h.Name)
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// handlerWarning sums byDest, the handler deliveries among the would
// deliveries a replay re-arms, and says in words what re-arming them
// does; the warning is empty when there are none.
func handlerWarning(byDest map[string]int64, would int64) (int64, string) {
	names := slices.Sorted(maps.Keys(byDest))
	var n int64
	for _, name := range names {
		n += byDest[name]
	}
	if n == 0 {
		return 0, ""
	}
	which := names[0]
	if len(names) > 1 {
		parts := make([]string, len(names))
		for i, name := range names {
			parts[i] = fmt.Sprintf("%s %d", name, byDest[name])
		}
		which = strings.Join(parts, ", ")
	}
	// The counts were made apart from the replay's own: a delivery that
	// joined the selection in between may make n the larger.
	would = max(would, n)
	const (
		one  = "its handler runs again and its effects apply again."
		many = "their handlers run again and their effects apply again."
	)
	switch {
	case would == 1:
		return n, fmt.Sprintf("The delivery to re-arm is a handler delivery (%s): %s", which, one)
	case n == would:
		return n, fmt.Sprintf("All %d deliveries to re-arm are handler deliveries (%s): %s", n, which, many)
	case n == 1:
		return n, fmt.Sprintf("1 of the %d deliveries to re-arm is a handler delivery (%s): %s", would, which, one)
	}
	return n, fmt.Sprintf("%d of the %d deliveries to re-arm are handler deliveries (%s): %s", n, would, which, many)
}
