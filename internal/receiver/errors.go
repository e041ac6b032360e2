package receiver

import (
	"errors"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/groupcommit"
	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Errors the receiver itself raises; signature and store errors are mapped
// alongside them in answerFor.
var (
	errUnknownSource = errors.New("unknown source")
	errBodyTooLarge  = errors.New("body too large")
	errBodyRead      = errors.New("body could not be read")
	errOverloaded    = errors.New("ingest concurrency cap reached")
)

// answer is what a provider is told: the status code drives its retry loop.
type answer struct {
	status int
	// reason is a short, fixed text safe to show a caller and to use as a
	// metric label; never internal detail.
	reason string
	// retry asks the provider to come back later (Retry-After).
	retry bool
}

// answerFor decides the HTTP status of every ingest failure, in one place.
// A nil error is a stored (or already stored) event: 200.
func answerFor(err error) answer {
	switch {
	case err == nil:
		return answer{status: http.StatusOK, reason: "ok"}
	case errors.Is(err, errUnknownSource):
		return answer{status: http.StatusNotFound, reason: "unknown_source"}
	case errors.Is(err, errBodyTooLarge):
		return answer{status: http.StatusRequestEntityTooLarge, reason: "body_too_large"}
	case errors.Is(err, errUploadTooSlow):
		return answer{status: http.StatusRequestTimeout, reason: "upload_too_slow"}
	case errors.Is(err, errShed):
		// Before errBodyRead, which a shed body's read error also wraps:
		// the body was cut for the load, and the provider should retry.
		return answer{status: http.StatusServiceUnavailable, reason: "overloaded", retry: true}
	case errors.Is(err, errBodyRead):
		return answer{status: http.StatusBadRequest, reason: "body_unreadable"}
	case errors.Is(err, signature.ErrMissingSignature):
		return answer{status: http.StatusBadRequest, reason: "signature_missing"}
	case errors.Is(err, signature.ErrMalformedSignature):
		return answer{status: http.StatusBadRequest, reason: "signature_malformed"}
	case errors.Is(err, signature.ErrMismatch):
		return answer{status: http.StatusUnauthorized, reason: "signature_mismatch"}
	case errors.Is(err, signature.ErrStale):
		return answer{status: http.StatusBadRequest, reason: "timestamp_out_of_tolerance"}
	case errors.Is(err, signature.ErrMissingIdentity), errors.Is(err, store.ErrInvalid):
		return answer{status: http.StatusBadRequest, reason: "identity_missing"}
	case errors.Is(err, errReplayedSignature):
		// Not a 200: the event is not stored. Not a 5xx: trying again
		// cannot help. A provider's own retries keep their delivery id
		// and are answered 200 duplicate before this is ever asked.
		return answer{status: http.StatusConflict, reason: "replayed_signature"}
	case errors.Is(err, signature.ErrNoSecret):
		return answer{status: http.StatusServiceUnavailable, reason: "source_has_no_secret"}
	case errors.Is(err, errOverloaded):
		return answer{status: http.StatusServiceUnavailable, reason: "overloaded", retry: true}
	case errors.Is(err, store.ErrUnavailable), errors.Is(err, groupcommit.ErrClosed):
		return answer{status: http.StatusServiceUnavailable, reason: "storage_unavailable", retry: true}
	default:
		// Anything unforeseen is still never a 200: the provider keeps the
		// event and tries again.
		return answer{status: http.StatusServiceUnavailable, reason: "internal_error", retry: true}
	}
}

// isVerificationFailure reports whether the answer rejects the request's
// authenticity or shape, the cases a rejection record is kept for.
func (a answer) isVerificationFailure() bool {
	switch a.reason {
	case "signature_missing", "signature_malformed", "signature_mismatch",
		"timestamp_out_of_tolerance", "identity_missing", "body_too_large", "source_has_no_secret",
		"replayed_signature":
		return true
	}
	return false
}
