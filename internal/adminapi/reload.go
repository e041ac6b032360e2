package adminapi

import (
	"context"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// ReloadFunc reads the config again and applies it, or refuses it with its
// problems and keeps the running one.
type ReloadFunc func(ctx context.Context) (adminwire.ReloadSummary, error)

// reload answers POST /api/v1/reload. A refused config is a 400 whose
// message lists its problems, one a line.
func (h *handler) reload(w http.ResponseWriter, r *http.Request) {
	if h.reloadFn == nil {
		h.fail(w, r, &requestError{http.StatusNotImplemented, "this relay was not started from a config file it can read again"})
		return
	}
	sum, err := h.reloadFn(r.Context())
	if err != nil {
		h.fail(w, r, badRequest("config refused; the running config stays:\n%v", err))
		return
	}
	writeJSON(w, http.StatusOK, sum)
}
