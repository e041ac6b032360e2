package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// replayEvent answers POST /events/{id}/replay: first a dry run and a
// confirmation page, then, confirmed, the replay of the event to all its
// destinations or to the one the form names.
func (c *Console) replayEvent(w http.ResponseWriter, r *http.Request, s *session) {
	id := r.PathValue("id")
	dest := r.PostForm.Get("destination")
	req := adminwire.ReplayRequest{Filter: adminwire.Filter{IDs: []string{id}, Destination: dest}, DryRun: !confirmed(r)}
	if _, err := c.svc.StoredEvent(r.Context(), id); err != nil {
		c.fail(w, r, s, err)
		return
	}
	res, err := c.svc.Replay(r.Context(), s.token.Name, req)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	eventURL := "/events/" + url.PathEscape(id)
	target := "all its destinations"
	if dest != "" {
		target = dest
	}
	if req.DryRun {
		form := url.Values{}
		if dest != "" {
			form.Set("destination", dest)
		}
		c.render(w, r, s, "confirm", "Replay event", "events", confirmView{
			Heading:   "Replay this event to " + target + "?",
			Lines:     replayLines(res),
			Warning:   res.Warning,
			Action:    eventURL + "/replay",
			Fields:    confirmFields(form),
			Button:    "Replay to " + target,
			Nothing:   res.Matched-res.InFlight <= 0,
			CancelURL: eventURL,
		})
		return
	}
	c.sessions.setFlash(r.Context(), s, fmt.Sprintf("Replayed to %s: %s re-armed, %s in flight left alone.",
		target, plural(res.Rearmed, "delivery", "deliveries"), formatCount(res.InFlight)))
	http.Redirect(w, r, eventURL, http.StatusSeeOther)
}

// replayLines says what a replay's dry run counted.
func replayLines(res adminwire.ReplayResult) []string {
	return []string{
		fmt.Sprintf("%s match: %s would be re-armed, %s in flight left alone.",
			plural(res.Matched, "delivery", "deliveries"), formatCount(res.Matched-res.InFlight), formatCount(res.InFlight)),
	}
}

// plural writes n with the noun that fits it.
func plural(n int64, one, many string) string {
	if n == 1 {
		return formatCount(n) + " " + one
	}
	return formatCount(n) + " " + many
}

// replaySetView is the replay page's data.
type replaySetView struct {
	Filter  filterForm
	Choices choices
	// Result is the outcome of the replay just run, from the flash.
	EventsURL string
}

// replaySetForm answers GET /replay: the filter of a set to replay, as on
// the events page, filled from the URL.
func (c *Console) replaySetForm(w http.ResponseWriter, r *http.Request, s *session) {
	f := filterFrom(r.URL.Query())
	c.render(w, r, s, "replay", "Replay a set", "replay", replaySetView{
		Filter: f, Choices: c.choices(), EventsURL: "/events?" + f.values().Encode(),
	})
}

// replaySet answers POST /replay: first the dry-run count and a
// confirmation page, then, confirmed, the replay, whose result the replay
// page shows.
func (c *Console) replaySet(w http.ResponseWriter, r *http.Request, s *session) {
	f := filterFrom(r.PostForm)
	api := f.api()
	if f.Text != "" {
		c.renderError(w, r, s, http.StatusBadRequest, "A search by text reads only part of the log, so it names no set to replay: "+
			"replay by filter, or open the events it found and replay each.")
		return
	}
	if f.Q != "" {
		ids, err := c.searchIDs(r.Context(), f)
		switch {
		case errors.Is(err, errTooMany):
			c.renderError(w, r, s, http.StatusBadRequest, err.Error())
			return
		case err != nil:
			c.fail(w, r, s, err)
			return
		}
		if len(ids) == 0 {
			ids = []string{"-"} // no event's id starts with q: select none
		}
		api.IDs = ids
	}
	formURL := "/replay?" + f.values().Encode()
	dryRun := !confirmed(r)
	res, err := c.svc.Replay(r.Context(), s.token.Name, adminwire.ReplayRequest{Filter: api, DryRun: dryRun})
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if dryRun {
		c.render(w, r, s, "confirm", "Replay a set", "replay", confirmView{
			Heading:   "Replay " + describeFilter(f) + "?",
			Lines:     replayLines(res),
			Warning:   res.Warning,
			Action:    "/replay",
			Fields:    confirmFields(f.values()),
			Button:    "Replay " + plural(res.Matched-res.InFlight, "delivery", "deliveries"),
			Nothing:   res.Matched-res.InFlight <= 0,
			CancelURL: formURL,
		})
		return
	}
	c.sessions.setFlash(r.Context(), s, fmt.Sprintf("Replay done: %s matched, %s re-armed, %s in flight left alone.",
		plural(res.Matched, "delivery", "deliveries"), formatCount(res.Rearmed), formatCount(res.InFlight)))
	http.Redirect(w, r, formURL, http.StatusSeeOther)
}

// describeFilter says in words which deliveries a filter selects.
func describeFilter(f filterForm) string {
	out := "the deliveries"
	if f.Status != "" {
		out = "every " + f.Status + " delivery"
	}
	if f.Destination != "" {
		out += " of " + f.Destination
	}
	if f.Source != "" {
		out += " from " + f.Source
	}
	if f.Type != "" {
		out += " of type " + f.Type
	}
	if f.Q != "" {
		out += " of the events whose id starts with " + f.Q
	}
	if f.Since != "" {
		out += " received since " + f.Since
	}
	if f.Until != "" {
		out += " before " + f.Until
	}
	return out
}
