package adminapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/signature"
)

// verifyEvent answers POST /api/v1/events/{id}/verify.
func (h *handler) verifyEvent(w http.ResponseWriter, r *http.Request) {
	out, err := h.Verify(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// Verify re-checks an event's stored bytes and headers, and the query
// it arrived with where its scheme signs one (Twilio), against its
// source's secrets as configured now. The check runs at the event's
// receive time, so the skew is the one the event had when it arrived; the
// tolerance is reported, not applied, and an old event still verifies. A
// purged event has nothing left to verify: 410.
func (s *Service) Verify(ctx context.Context, id string) (adminwire.Verification, error) {
	ev, err := s.StoredPayload(ctx, id)
	if err != nil {
		return adminwire.Verification{}, err
	}
	src, ok := s.cfg.Source(ev.Source)
	if !ok {
		return adminwire.Verification{Reason: fmt.Sprintf("source %q is no longer configured", ev.Source)}, nil
	}
	opts := src.SchemeOptions()
	tolerance := opts.Tolerance
	if tolerance <= 0 {
		tolerance = signature.DefaultToleranceOf(opts.Scheme)
	}
	out := adminwire.Verification{Scheme: opts.Scheme, ToleranceSeconds: tolerance.Seconds()}
	switch opts.Scheme {
	case "gitlab":
		out.Reason = "GitLab sends its shared token itself, not a signature, and hookrelay never stores it: a stored GitLab event cannot be re-checked"
		return out, nil
	case "none":
		out.Reason = fmt.Sprintf("source %q verifies nothing (verify: none)", ev.Source)
		return out, nil
	}
	scheme, err := signature.New(opts)
	if err != nil {
		return adminwire.Verification{}, fmt.Errorf("build scheme of source %q: %w", ev.Source, err)
	}
	res, err := scheme.Verify(signature.Request{Header: ev.Headers, Body: ev.Body, RawQuery: ev.RawQuery, Now: ev.ReceivedAt})
	out.WithinTolerance = true
	if res.HasTimestamp {
		skew := roundMS(res.Skew.Seconds())
		out.SkewSeconds = &skew
		out.SignedAt = adminwire.OptionalTime(res.Timestamp)
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
	return out, nil
}
