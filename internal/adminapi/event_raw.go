package adminapi

import (
	"net/http"
	"strconv"
)

// rawEvent answers GET /api/v1/events/{id}/raw: the stored body, byte for
// byte, with the Content-Type it arrived with. The body is the provider's,
// not ours: it is never sniffed, and a browser that opens it runs none of
// it. A purged event's payload is gone: 410.
func (h *handler) rawEvent(w http.ResponseWriter, r *http.Request) {
	ev, err := h.StoredPayload(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ct := ev.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	hd := w.Header()
	hd.Set("Content-Type", ct)
	hd.Set("Content-Length", strconv.Itoa(len(ev.Body)))
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "sandbox")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(ev.Body)
}
