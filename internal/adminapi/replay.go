package adminapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

// replay answers POST /api/v1/replay: it re-arms the deliveries of the
// events that ids or a filter select, or on a dry run only counts them.
func (h *handler) replay(w http.ResponseWriter, r *http.Request) {
	var req adminwire.ReplayRequest
	if err := decodeBody(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	res, err := h.Replay(r.Context(), tokenFrom(r.Context()).Name, req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// Replay re-arms the deliveries of the events that req's ids or filter
// select, or on a dry run only counts them, and counts apart those of
// handler destinations, whose effects a replay applies again; actor names
// who asked, for the audit row. An empty filter is refused: replaying everything must be
// asked for with a window.
func (s *Service) Replay(ctx context.Context, actor string, req adminwire.ReplayRequest) (adminwire.ReplayResult, error) {
	filter, err := s.replayFilter(ctx, req)
	if err != nil {
		return adminwire.ReplayResult{}, err
	}
	audit(ctx, "filter", req.Filter, "dry_run", req.DryRun)
	res, err := s.replay(ctx, store.ReplayRequest{Filter: filter, DryRun: req.DryRun, Actor: actor, Now: s.now()})
	if err != nil {
		return adminwire.ReplayResult{}, err
	}
	if req.DryRun {
		byDest, err := s.handlerReplays(ctx, filter, s.now())
		if err != nil {
			return adminwire.ReplayResult{}, fmt.Errorf("replay: %w", err)
		}
		res.HandlerDeliveries, res.Warning = handlerWarning(byDest, res.Matched-res.InFlight)
	}
	audit(ctx, "matched", res.Matched, "rearmed", res.Rearmed, "in_flight", res.InFlight, "handler_deliveries", res.HandlerDeliveries)
	return res, nil
}

// replayFilter checks a replay request and returns its filter: ids or a
// filter, with names the config has and ids that exist.
func (s *Service) replayFilter(ctx context.Context, req adminwire.ReplayRequest) (store.EventFilter, error) {
	if selectsAll(req.Filter) {
		return store.EventFilter{}, badRequest("replay needs ids or a filter (source, type, status, destination, since, until)")
	}
	filter, err := toFilter(req.Filter)
	if err != nil {
		return store.EventFilter{}, err
	}
	return filter, s.checkReplay(ctx, filter)
}

// replay runs a checked replay and wakes the destinations it re-armed
// deliveries of, also when it stopped part way; the result is what it did
// so far.
func (s *Service) replay(ctx context.Context, req store.ReplayRequest) (adminwire.ReplayResult, error) {
	res, err := s.store.Replay(ctx, req)
	if res.Rearmed > 0 {
		s.wakeReplayed(req.Filter.Destination)
	}
	out := adminwire.ReplayResult{Matched: res.Matched, Rearmed: res.Rearmed, InFlight: res.InFlight, DryRun: req.DryRun}
	if err != nil {
		return out, fmt.Errorf("replay: %w", err)
	}
	return out, nil
}

// wakeReplayed wakes the destination a replay was limited to, or every
// configured destination when it was not.
func (s *Service) wakeReplayed(destination string) {
	if destination != "" {
		s.wake(destination)
		return
	}
	for _, d := range s.cfg.Destinations {
		s.wake(d.Name)
	}
}
