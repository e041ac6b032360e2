package adminapi

import (
	"net/http"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Page sizes of the listing.
const (
	defaultLimit = 50
	maxLimit     = 1000
)

// listEvents answers GET /api/v1/events: one page of events, newest first,
// with their deliveries' states.
func (h *handler) listEvents(w http.ResponseWriter, r *http.Request) {
	if h.ops == nil {
		h.fail(w, r, errNoOperations)
		return
	}
	q := r.URL.Query()
	if err := checkQuery(q, "source", "type", "status", "destination", "since", "until", "cursor", "limit"); err != nil {
		h.fail(w, r, err)
		return
	}
	filter, err := toFilter(Filter{
		Source:      q.Get("source"),
		Type:        q.Get("type"),
		Status:      q.Get("status"),
		Destination: q.Get("destination"),
		Since:       q.Get("since"),
		Until:       q.Get("until"),
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	limit, err := intParam(q, "limit", defaultLimit, 1, maxLimit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	events, next, err := h.ops.ListEvents(r.Context(), store.ListRequest{Filter: filter, Cursor: q.Get("cursor"), Limit: limit})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := EventList{Events: make([]Event, len(events)), NextCursor: next}
	for i, e := range events {
		out.Events[i] = eventSummary(e)
	}
	writeJSON(w, http.StatusOK, out)
}
