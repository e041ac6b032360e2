package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// skipDelivery answers POST /deliveries/{id}/skip: first a confirmation
// page, then, confirmed, the delivery is set skipped and not tried again,
// as `hookrelay destinations skip` does. It asks first because a skipped
// delivery is final: only a replay sends it again.
func (c *Console) skipDelivery(w http.ResponseWriter, r *http.Request, s *session) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		c.renderError(w, r, s, http.StatusNotFound, "There is no such delivery.")
		return
	}
	back := "/events"
	if ev := r.PostForm.Get("event"); ev != "" {
		back = "/events/" + url.PathEscape(ev)
	}
	if !confirmed(r) {
		c.render(w, r, s, "confirm", "Skip a delivery", "events", confirmView{
			Heading:   fmt.Sprintf("Skip delivery %d?", id),
			Lines:     []string{"It will not be tried again: it ends skipped, which only a replay undoes. Its event and attempts stay."},
			Action:    "/deliveries/" + strconv.FormatInt(id, 10) + "/skip",
			Fields:    confirmFields(url.Values{"event": {r.PostForm.Get("event")}}),
			Button:    "Skip the delivery",
			CancelURL: back,
		})
		return
	}
	d, err := c.svc.SkipDelivery(r.Context(), s.token.Name, id)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	c.sessions.setFlash(r.Context(), s, fmt.Sprintf("Delivery %d to %s skipped: it will not be tried again.", id, d.Destination))
	http.Redirect(w, r, "/events/"+url.PathEscape(d.EventID)+"#delivery-"+url.PathEscape(d.Destination), http.StatusSeeOther)
}
