package adminapi

import (
	"fmt"
	"net/http"
)

// showEvent answers GET /api/v1/events/{id}: the event with its headers,
// its deliveries and each delivery's attempts.
func (h *handler) showEvent(w http.ResponseWriter, r *http.Request) {
	if h.queue == nil {
		h.fail(w, r, errNoQueue)
		return
	}
	ev, err := h.event(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ds, err := h.store.EventDeliveries(r.Context(), ev.ID)
	if err != nil {
		h.fail(w, r, fmt.Errorf("read deliveries: %w", err))
		return
	}
	out := make([]Delivery, len(ds))
	for i, d := range ds {
		attempts, err := h.queue.DeliveryAttempts(r.Context(), d.ID)
		if err != nil {
			h.fail(w, r, fmt.Errorf("read attempts: %w", err))
			return
		}
		out[i] = deliveryDetail(d, attempts)
	}
	writeJSON(w, http.StatusOK, eventDetail(ev, out))
}
