package adminapi

import (
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// startReplayJob answers POST /api/v1/jobs/replay: 202 with the job.
func (h *handler) startReplayJob(w http.ResponseWriter, r *http.Request) {
	var req adminwire.JobReplayRequest
	if err := decodeBody(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	h.answerJob(w, r, func() (adminwire.Job, error) { return h.StartReplay(r.Context(), tokenFrom(r.Context()).Name, req) })
}

// startBackfillJob answers POST /api/v1/jobs/backfill: 202 with the job.
func (h *handler) startBackfillJob(w http.ResponseWriter, r *http.Request) {
	var req adminwire.BackfillRequest
	if err := decodeBody(w, r, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	h.answerJob(w, r, func() (adminwire.Job, error) { return h.StartBackfill(r.Context(), tokenFrom(r.Context()).Name, req) })
}

// answerJob answers a started job with 202 and its location.
func (h *handler) answerJob(w http.ResponseWriter, r *http.Request, start func() (adminwire.Job, error)) {
	j, err := start()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/v1/jobs/"+j.ID)
	writeJSON(w, http.StatusAccepted, j)
}

// showJob answers GET /api/v1/jobs/{id}.
func (h *handler) showJob(w http.ResponseWriter, r *http.Request) {
	j, err := h.Job(r.Context(), r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, j)
}

// listJobs answers GET /api/v1/jobs.
func (h *handler) listJobs(w http.ResponseWriter, r *http.Request) {
	jobs, err := h.ListJobs(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, jobs)
}

// cancelJob answers POST /api/v1/jobs/{id}/cancel.
func (h *handler) cancelJob(w http.ResponseWriter, r *http.Request) {
	j, err := h.CancelJob(r.Context(), tokenFrom(r.Context()).Name, r.PathValue("id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, j)
}
