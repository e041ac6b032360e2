package adminapi

import (
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/store"
)

// replay answers POST /api/v1/replay: it re-arms the deliveries of the
// events that ids or a filter select, or on a dry run only counts them. An
// empty filter is refused: replaying everything must be asked for with a
// window.
func (h *handler) replay(w http.ResponseWriter, r *http.Request) {
	if h.ops == nil {
		h.fail(w, r, errNoOperations)
		return
	}
	var req ReplayRequest
	if err := decodeBody(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	if req.isEmpty() {
		h.fail(w, r, badRequest("replay needs ids or a filter (source, type, status, destination, since, until)"))
		return
	}
	filter, err := toFilter(req.Filter)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	audit(r.Context(), "filter", req.Filter, "dry_run", req.DryRun)
	res, err := h.ops.Replay(r.Context(), store.ReplayRequest{
		Filter: filter,
		DryRun: req.DryRun,
		Actor:  tokenFrom(r.Context()).Name,
		Now:    h.now(),
	})
	if err != nil {
		h.fail(w, r, fmt.Errorf("replay: %w", err))
		return
	}
	audit(r.Context(), "matched", res.Matched, "rearmed", res.Rearmed, "in_flight", res.InFlight)
	if res.Rearmed > 0 {
		h.wakeReplayed(filter.Destination)
	}
	writeJSON(w, http.StatusOK, ReplayResult{Matched: res.Matched, Rearmed: res.Rearmed, InFlight: res.InFlight, DryRun: req.DryRun})
}

// wakeReplayed wakes the destination a replay was limited to, or every
// configured destination when it was not.
func (h *handler) wakeReplayed(destination string) {
	if destination != "" {
		h.wake(destination)
		return
	}
	for _, d := range h.cfg.Destinations {
		h.wake(d.Name)
	}
}
