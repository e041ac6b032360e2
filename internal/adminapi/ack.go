package adminapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

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
	if h.queue == nil {
		h.fail(w, r, errNoQueue)
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		h.fail(w, r, badRequest("delivery id: want a positive whole number, got %q", r.PathValue("id")))
		return
	}
	var req AckRequest
	if err := decodeBody(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	switch req.Outcome {
	case OutcomeDone, OutcomeFailed, OutcomeSkipped, OutcomeReleased:
	default:
		h.fail(w, r, badRequest("outcome: want done, failed, skipped or released, got %q", req.Outcome))
		return
	}
	if req.StatusCode != 0 && (req.StatusCode < 100 || req.StatusCode > 599) {
		h.fail(w, r, badRequest("status_code: want an HTTP status code, got %d", req.StatusCode))
		return
	}
	l, ok := openLease(req.LeaseToken)
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
	held, err := h.leasedDelivery(r.Context(), l)
	if err != nil {
		h.fail(w, r, err)
		return
	}

	if req.Outcome == OutcomeReleased {
		if err := h.queue.ReleaseDeliveries(r.Context(), []store.Release{{DeliveryID: id, LeaseToken: l.StoreToken}}); err != nil {
			h.fail(w, r, fmt.Errorf("release delivery %d: %w", id, err))
			return
		}
		h.pulls.notify(dest.Name)
		writeJSON(w, http.StatusOK, AckResult{Status: OutcomeReleased})
		return
	}

	if held.Status != store.StatusProcessing {
		h.fail(w, r, fmt.Errorf("delivery %d is %s: %w", id, held.Status, store.ErrLeaseLost))
		return
	}
	now := h.now()
	c := store.Completion{
		DeliveryID: id,
		LeaseToken: l.StoreToken,
		Status:     store.DeliveryStatus(req.Outcome),
		Attempt: store.Attempt{
			DeliveryID:  id,
			AttemptedAt: held.UpdatedAt,
			Duration:    max(0, now.Sub(held.UpdatedAt)),
			StatusCode:  req.StatusCode,
			Error:       delivery.ShortError(req.Error),
			// The store keeps at most 1 KiB of it.
			ResponseSnippet: req.ResponseSnippet,
		},
		Now: now,
	}
	if c.Status == store.StatusFailed {
		c.Status, c.NextAttemptAt = delivery.PolicyFor(*dest).Decide(held.Attempts, 0, now)
	}
	if err := h.queue.CompleteDelivery(r.Context(), c); err != nil {
		if !errors.Is(err, store.ErrLeaseLost) {
			err = fmt.Errorf("complete delivery %d: %w", id, err)
		}
		h.fail(w, r, err)
		return
	}
	audit(r.Context(), keyStatus, c.Status)
	if c.Status == store.StatusDead {
		h.logger.Error("delivery dead", keyDeliveryID, id, keyEventID, l.EventID, keyDestination, dest.Name,
			"attempts", held.Attempts, keyError, c.Attempt.Error)
	}
	writeJSON(w, http.StatusOK, AckResult{Status: string(c.Status), NextAttemptAt: timePtr(c.NextAttemptAt)})
}
