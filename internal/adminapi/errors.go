package adminapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/delivery"
	"github.com/hookrelay/hookrelay/internal/store"
)

// requestError is a problem of the request itself; its message is meant
// for the caller.
type requestError struct {
	status int
	msg    string
}

func (e *requestError) Error() string { return e.msg }

// badRequest returns a 400 whose message is the formatted text.
func badRequest(format string, args ...any) error {
	return &requestError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

// notFound returns a 404 whose message is the formatted text.
func notFound(format string, args ...any) error {
	return &requestError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

var errForbidden = &requestError{http.StatusForbidden, "the token's role does not allow this"}

// statusOf decides the status code of an error, and the message the
// caller may see. Internal errors get a generic message: their detail is
// logged, never sent.
func statusOf(err error) (int, string) {
	var re *requestError
	switch {
	case errors.As(err, &re):
		return re.status, re.msg
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "not found"
	case errors.Is(err, store.ErrBadFilter):
		return http.StatusBadRequest, err.Error()
	case errors.Is(err, store.ErrFinal):
		return http.StatusConflict, "the delivery is already final (done, skipped, dead or purged): nothing to skip"
	case errors.Is(err, delivery.ErrNoLease):
		return errLeaseMismatch.status, errLeaseMismatch.msg
	case errors.Is(err, store.ErrLeaseLost):
		return http.StatusConflict, "the lease was lost: the delivery was claimed again or released; its outcome was not recorded"
	case errors.Is(err, store.ErrUnavailable):
		return http.StatusServiceUnavailable, "storage unavailable; try again shortly"
	}
	return http.StatusInternalServerError, "internal error"
}

// fail answers err with its status and logs what the caller is not told.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := statusOf(err)
	switch {
	case status >= 500:
		h.logger.Error("admin request failed", keyMethod, r.Method, keyPath, r.URL.Path, keyStatus, status, keyError, err)
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "5")
		}
	case status == http.StatusForbidden:
		t := tokenFrom(r.Context())
		h.logger.Warn("admin request forbidden", keyToken, t.Name, keyRole, t.Role, keyMethod, r.Method, keyPath, r.URL.Path)
	}
	writeError(w, status, msg)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, adminwire.Error{Error: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set(adminwire.APIHeader, adminwire.APIVersion)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
