package adminapi

import (
	"context"
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// showEvent answers GET /api/v1/events/{id}.
func (h *handler) showEvent(w http.ResponseWriter, r *http.Request) {
	out, err := h.Event(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// Event returns the event with hookrelay id id, with its headers (those
// that carry a signature masked, see maskSignatures), its deliveries and
// each delivery's attempts, and its tombstone when it was purged; an
// unknown id is a 404 error.
func (s *Service) Event(ctx context.Context, id string) (adminwire.EventDetail, error) {
	ev, err := s.StoredEvent(ctx, id)
	if err != nil {
		return adminwire.EventDetail{}, err
	}
	ds, err := s.store.EventDeliveries(ctx, ev.ID)
	if err != nil {
		return adminwire.EventDetail{}, fmt.Errorf("read deliveries: %w", err)
	}
	out := make([]adminwire.Delivery, len(ds))
	for i, d := range ds {
		if out[i], err = s.withAttempts(ctx, d); err != nil {
			return adminwire.EventDetail{}, err
		}
	}
	tomb, err := s.tombstone(ctx, ev.ID)
	if err != nil {
		return adminwire.EventDetail{}, err
	}
	src, _ := s.cfg.Source(ev.Source)
	ev.Headers = maskSignatures(ev.Headers, src)
	detail := adminwire.EventDetailOf(ev, out)
	detail.Purged = tomb
	return detail, nil
}
