package adminapi

import (
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// verifyEvent answers POST /api/v1/events/{id}/verify: it re-checks the
// stored bytes and headers against the source's secrets as configured now.
// The check runs at the event's receive time, so the skew is the one the
// event had when it arrived; the tolerance is reported, not applied, and an
// old event still verifies.
func (h *handler) verifyEvent(w http.ResponseWriter, r *http.Request) {
	if h.schemes == nil {
		h.fail(w, r, errors.New("verify: no SchemeOptions in the admin API's options"))
		return
	}
	ev, err := h.event(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	src, ok := h.cfg.Source(ev.Source)
	if !ok {
		writeJSON(w, http.StatusOK, Verification{Reason: fmt.Sprintf("source %q is no longer configured", ev.Source)})
		return
	}
	opts := h.schemes(*src)
	tolerance := opts.Tolerance
	if tolerance <= 0 {
		tolerance = signature.DefaultTolerance
	}
	out := Verification{Scheme: opts.Scheme, ToleranceSeconds: tolerance.Seconds()}
	switch opts.Scheme {
	case "gitlab":
		out.Reason = "GitLab sends its shared token itself, not a signature, and hookrelay never stores it: a stored GitLab event cannot be re-checked"
		writeJSON(w, http.StatusOK, out)
		return
	case "none":
		out.Reason = fmt.Sprintf("source %q verifies nothing (verify: none)", ev.Source)
		writeJSON(w, http.StatusOK, out)
		return
	}
	scheme, err := signature.New(opts)
	if err != nil {
		h.fail(w, r, fmt.Errorf("build scheme of source %q: %w", ev.Source, err))
		return
	}
	res, err := scheme.Verify(signature.Request{Header: ev.Headers, Body: ev.Body, Now: ev.ReceivedAt})
	out.WithinTolerance = true
	if res.HasTimestamp {
		skew := math.Round(res.Skew.Seconds()*1000) / 1000
		out.SkewSeconds = &skew
		out.SignedAt = timePtr(res.Timestamp)
		out.WithinTolerance = res.Skew <= tolerance && res.Skew >= -tolerance
	}
	switch {
	case err == nil, errors.Is(err, signature.ErrStale):
		out.Valid, out.Slot = true, &res.Slot
		if !out.WithinTolerance {
			out.Reason = fmt.Sprintf("the signature matches; the signed timestamp was %s from the receive time, beyond the tolerance of %s (reported, not applied)",
				res.Skew, tolerance)
		}
	case errors.Is(err, signature.ErrMismatch):
		out.Reason = "the signature matches none of the secrets configured now"
	case errors.Is(err, signature.ErrNoSecret):
		out.Reason = fmt.Sprintf("source %q has no secret configured", ev.Source)
	case errors.Is(err, signature.ErrMissingSignature):
		out.Reason = "the stored headers carry no signature for the scheme " + opts.Scheme
	case errors.Is(err, signature.ErrMalformedSignature):
		out.Reason = "the stored signature header cannot be parsed by the scheme " + opts.Scheme
	default:
		out.Reason = err.Error()
	}
	writeJSON(w, http.StatusOK, out)
}
