package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// destinationView is one destination's row of the destinations page.
type destinationView struct {
	Name    string
	URL     string // empty for a pull or handler destination
	Pull    bool
	Handler bool // handled in code, inside the application's transaction
	Stats   adminwire.DestinationStats
	Backlog int64
	// LastError is the last error of its most recent failed or dead
	// delivery, and LastErrorEvent that delivery's event.
	LastError      string
	LastErrorEvent string
	FailedURL      string
	DeadURL        string
	// Paused is set while deliveries to it wait (hookrelay destinations
	// pause), PausedFor for how many seconds so far.
	Paused    bool
	PausedFor float64
}

// destinations answers GET /destinations.
func (c *Console) destinations(w http.ResponseWriter, r *http.Request, s *session) {
	stats, err := c.svc.Stats(r.Context())
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	var out []destinationView
	for _, d := range c.cfg.Destinations {
		st := stats.Destinations[d.Name]
		v := destinationView{
			Name: d.Name, URL: d.URL, Pull: d.Pull, Handler: d.Handler, Stats: st,
			Backlog:   st.Pending + st.Processing + st.Failed,
			FailedURL: "/events?" + url.Values{"destination": {d.Name}, "status": {"failed"}}.Encode(),
			DeadURL:   "/events?" + url.Values{"destination": {d.Name}, "status": {"dead"}}.Encode(),
		}
		if p, ok := stats.Paused[d.Name]; ok {
			v.Paused, v.PausedFor = true, p.PausedForSeconds
		}
		if st.Failed+st.Dead > 0 {
			if v.LastError, v.LastErrorEvent, err = c.lastError(r.Context(), d.Name); err != nil {
				c.fail(w, r, s, err)
				return
			}
		}
		out = append(out, v)
	}
	c.render(w, r, s, "destinations", "Destinations", "destinations", out)
}

// lastError returns the last error of the newest failed, else dead,
// delivery of a destination, and its event's id.
func (c *Console) lastError(ctx context.Context, destination string) (string, string, error) {
	for _, status := range []string{"failed", "dead"} {
		list, err := c.svc.ListEvents(ctx, adminwire.Filter{Destination: destination, Status: status}, "", 1)
		if err != nil {
			return "", "", err
		}
		if len(list.Events) == 0 {
			continue
		}
		ev, err := c.svc.Event(ctx, list.Events[0].ID)
		if err != nil {
			return "", "", err
		}
		for _, d := range ev.Deliveries {
			if d.Destination == destination {
				msg := d.LastError
				if msg == "" && d.LastStatusCode != 0 {
					msg = fmt.Sprintf("HTTP %d", d.LastStatusCode)
				}
				return msg, ev.ID, nil
			}
		}
	}
	return "", "", nil
}

// backfill answers POST /destinations/{name}/backfill: first the dry-run
// count and a confirmation page, then, confirmed, the backfill.
func (c *Console) backfill(w http.ResponseWriter, r *http.Request, s *session) {
	name := r.PathValue("name")
	req := adminwire.BackfillRequest{
		Destination: name,
		Since:       r.PostForm.Get("since"),
		Until:       r.PostForm.Get("until"),
		DryRun:      !confirmed(r),
	}
	res, err := c.svc.Backfill(r.Context(), s.token.Name, req)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	if req.DryRun {
		c.render(w, r, s, "confirm", "Backfill "+name, "destinations", confirmView{
			Heading: fmt.Sprintf("Backfill %s from %s to %s?", name, req.Since, req.Until),
			Lines: []string{fmt.Sprintf("%s of the window would have gone to %s and have no delivery to it: %s would be created.",
				plural(res.Matched, "event", "events"), name, plural(res.Matched, "delivery", "deliveries"))},
			Action:    "/destinations/" + url.PathEscape(name) + "/backfill",
			Fields:    confirmFields(url.Values{"since": {req.Since}, "until": {req.Until}}),
			Button:    "Backfill " + plural(res.Matched, "delivery", "deliveries"),
			Nothing:   res.Matched == 0,
			CancelURL: "/destinations",
		})
		return
	}
	c.sessions.setFlash(r.Context(), s, fmt.Sprintf("Backfill of %s done: %s created.", name, plural(res.Created, "delivery", "deliveries")))
	http.Redirect(w, r, "/destinations", http.StatusSeeOther)
}

// pause answers POST /destinations/{name}/pause and /resume: deliveries to
// the destination wait, or go on. Nothing is dropped either way, so, as in
// the API, no confirmation is asked.
func (c *Console) pause(paused bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		name := r.PathValue("name")
		if err := c.svc.SetPaused(r.Context(), s.token.Name, name, paused); err != nil {
			c.fail(w, r, s, err)
			return
		}
		msg := fmt.Sprintf("%s is paused: its deliveries wait, none is dropped; resume it to deliver them.", name)
		if !paused {
			msg = fmt.Sprintf("%s is resumed: its waiting deliveries go out now.", name)
		}
		c.sessions.setFlash(r.Context(), s, msg)
		http.Redirect(w, r, "/destinations#dest-"+url.PathEscape(name), http.StatusSeeOther)
	}
}
