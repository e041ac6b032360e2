package adminapi

import (
	"context"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Page sizes of the listing.
const (
	defaultLimit = 50
	maxLimit     = 1000
)

// listEvents answers GET /api/v1/events: one page of events, newest first,
// with their deliveries' states, of those the filter selects and, with q
// or text, the search finds (see SearchEvents).
func (h *handler) listEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := checkQuery(q, "source", "type", "status", "destination", "since", "until", "cursor", "limit", "q", "text", "scan"); err != nil {
		h.fail(w, r, err)
		return
	}
	limit, err := intParam(q, "limit", defaultLimit, 1, maxLimit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	scan, err := intParam(q, "scan", 0, 1, store.MaxScanLimit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out, err := h.SearchEvents(r.Context(), adminwire.Filter{
		Source:      q.Get("source"),
		Type:        q.Get("type"),
		Status:      q.Get("status"),
		Destination: q.Get("destination"),
		Since:       q.Get("since"),
		Until:       q.Get("until"),
	}, adminwire.Search{Q: q.Get("q"), Text: q.Get("text"), Scan: scan}, q.Get("cursor"), limit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// ListEvents returns one page of the events f selects, newest first, with
// their deliveries' states; cursor is the previous page's NextCursor
// (empty for the first) and limit the page size, at most 1000.
func (s *Service) ListEvents(ctx context.Context, f adminwire.Filter, cursor string, limit int) (adminwire.EventList, error) {
	filter, err := toFilter(f)
	if err != nil {
		return adminwire.EventList{}, err
	}
	limit = min(max(limit, 1), maxLimit)
	events, next, err := s.store.ListEvents(ctx, store.ListRequest{Filter: filter, Cursor: cursor, Limit: limit})
	if err != nil {
		return adminwire.EventList{}, err
	}
	out := adminwire.EventList{Events: make([]adminwire.Event, len(events)), NextCursor: next}
	for i, e := range events {
		out.Events[i] = adminwire.EventOf(e)
	}
	return out, nil
}
