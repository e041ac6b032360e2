package console

import (
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// jobs answers GET /jobs: the replay and backfill jobs of every relay
// process on the database, running or run lately, with their progress, as
// `hookrelay jobs` lists them.
func (c *Console) jobs(w http.ResponseWriter, r *http.Request, s *session) {
	list, err := c.svc.ListJobs(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.render(w, r, s, "jobs", "Jobs", "jobs", list.Jobs)
}

// cancelJob answers POST /jobs/{id}/cancel: the job stops between two
// batches, keeping what it did. Nothing is undone, so, as in the API, no
// confirmation is asked.
func (c *Console) cancelJob(w http.ResponseWriter, r *http.Request, s *session) {
	j, err := c.svc.CancelJob(r.Context(), s.token.Name, r.PathValue("id"))
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	msg := fmt.Sprintf("Job %s asked to stop: it stops between two batches and keeps what it did.", j.ID)
	if j.State != adminwire.JobCounting && j.State != adminwire.JobRunning {
		msg = fmt.Sprintf("Job %s had already ended (%s).", j.ID, j.State)
	}
	c.sessions.setFlash(r.Context(), s, msg)
	http.Redirect(w, r, "/jobs", http.StatusSeeOther)
}
