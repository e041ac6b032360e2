package adminapi

import (
	"net/http"
	"strconv"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/store"
)

var errLeaseMismatch = &requestError{http.StatusConflict,
	"the lease_token names no delivery of a pull destination; claim again"}

// ack answers POST /api/v1/deliveries/{id}/ack: the outcome of a claimed
// delivery, under the lease its claim handed out. A failure follows the
// destination's retry policy, to its next attempt or to dead; "released"
// hands the delivery back unattempted.
func (h *handler) ack(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		h.fail(w, r, badRequest("delivery id: want a positive whole number, got %q", r.PathValue("id")))
		return
	}
	var req adminwire.AckRequest
	if err := decodeBody(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	switch req.Outcome {
	case adminwire.OutcomeDone, adminwire.OutcomeFailed, adminwire.OutcomeSkipped, adminwire.OutcomeReleased:
	default:
		h.fail(w, r, badRequest("outcome: want done, failed, skipped or released, got %q", req.Outcome))
		return
	}
	if req.StatusCode != 0 && (req.StatusCode < 100 || req.StatusCode > 599) {
		h.fail(w, r, badRequest("status_code: want an HTTP status code, got %d", req.StatusCode))
		return
	}
	l, ok := delivery.OpenLease(req.LeaseToken)
	if !ok {
		h.fail(w, r, badRequest("lease_token: not a token a claim handed out"))
		return
	}
	if l.DeliveryID != id {
		h.fail(w, r, badRequest("lease_token: it leases delivery %d, not %d", l.DeliveryID, id))
		return
	}
	if !canConsume(tokenFrom(r.Context()), l.Destination) {
		h.fail(w, r, errForbidden)
		return
	}
	audit(r.Context(), keyDeliveryID, id, keyDestination, l.Destination, keyEventID, l.EventID, "outcome", req.Outcome)
	dest, ok := h.cfg.Destination(l.Destination)
	if !ok || !dest.Pull {
		h.fail(w, r, errLeaseMismatch)
		return
	}
	if req.Outcome == adminwire.OutcomeReleased {
		if err := h.puller.Release(r.Context(), l); err != nil {
			h.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, adminwire.AckResult{Status: adminwire.OutcomeReleased})
		return
	}
	status, next, err := h.puller.Ack(r.Context(), *dest, l, delivery.PullOutcome{
		Status:          store.DeliveryStatus(req.Outcome),
		StatusCode:      req.StatusCode,
		Error:           req.Error,
		ResponseSnippet: req.ResponseSnippet,
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	audit(r.Context(), keyStatus, status)
	writeJSON(w, http.StatusOK, adminwire.AckResult{Status: string(status), NextAttemptAt: adminwire.OptionalTime(next)})
}
