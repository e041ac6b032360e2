package console

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/failure"
)

// failuresView is the failures page's data: the groups, of one
// destination when the query names one ("" for every destination).
type failuresView struct {
	Destination string
	Groups      []failureGroupView
	// Deliveries counts the deliveries of every group.
	Deliveries int64
}

// failureGroupView is one row of the failures page.
type failureGroupView struct {
	adminwire.FailureGroup
	// Label is how the kind reads; Example the example's error, or its
	// status code when it recorded no error.
	Label   string
	Example string
	// EventsURL lists the group's events: those of its destination, in its
	// status, received in its window.
	EventsURL string
	// Replay is the filter the replay page counts, then replays, for the
	// group: its destination, status and window. Nil when the config no
	// longer has the destination, which a replay refuses.
	Replay []field
}

// failures answers GET /failures?destination=: the failed and dead
// deliveries grouped by destination, status and kind, each with a link
// to its events and, for an admin, its replay through the replay page's
// dry run and confirmation.
func (c *Console) failures(w http.ResponseWriter, r *http.Request, s *session) {
	dest := strings.TrimSpace(r.URL.Query().Get("destination"))
	list, err := c.svc.Failures(r.Context(), dest)
	if err != nil {
		c.fail(w, r, s, err)
		return
	}
	v := failuresView{Destination: dest, Groups: make([]failureGroupView, len(list.Groups))}
	for i, g := range list.Groups {
		v.Groups[i] = c.failureGroup(g)
		v.Deliveries += g.Count
	}
	c.render(w, r, s, "failures", "Failures", "failures", v)
}

// failureGroup returns the row of g.
func (c *Console) failureGroup(g adminwire.FailureGroup) failureGroupView {
	f := filterForm{Destination: g.Destination, Status: g.Status}
	if g.ReceivedSince != nil && g.ReceivedUntil != nil {
		f.Since, f.Until = stampMillis(*g.ReceivedSince), stampMillis(*g.ReceivedUntil)
	}
	out := failureGroupView{
		FailureGroup: g,
		Label:        failure.Kind(g.Kind).Label(),
		Example:      g.ExampleError,
		EventsURL:    "/events?" + f.values().Encode(),
	}
	if out.Example == "" && g.ExampleStatusCode != 0 {
		out.Example = fmt.Sprintf("HTTP %d", g.ExampleStatusCode)
	}
	if _, ok := c.cfg.Destination(g.Destination); ok {
		for _, kv := range [][2]string{{"destination", f.Destination}, {"status", f.Status}, {"since", f.Since}, {"until", f.Until}} {
			if kv[1] != "" {
				out.Replay = append(out.Replay, field{Name: kv[0], Value: kv[1]})
			}
		}
	}
	return out
}

// stampMillis writes a window's bound to the millisecond, as event ids
// keep receive times.
func stampMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
