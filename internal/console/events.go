package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// errTooMany reports a search that names more events than a set may
// hold; its message is meant for the operator.
var errTooMany = errors.New("too many events")

// eventsPageSize is how many events one page of the listing shows.
const eventsPageSize = 50

// eventsView is the events page's data.
type eventsView struct {
	Filter    filterForm
	Choices   choices
	Events    []adminwire.Event
	Error     string
	Paged     bool   // a page after the first
	NextURL   string // the next page, or empty on the last
	FirstURL  string
	Live      bool
	ReplayURL string // empty when the page's set cannot be replayed
	// TextSearch is what a search by text read for this page, or nil.
	TextSearch *adminwire.TextSearch
}

// events answers GET /events: one page of events newest first, with the
// filters and the search in the URL so that a page can be pasted into a
// chat.
func (c *Console) events(w http.ResponseWriter, r *http.Request, s *session) {
	q := r.URL.Query()
	f := filterFrom(q)
	cursor := q.Get("cursor")
	v := eventsView{Filter: f, Choices: c.choices(), Paged: cursor != "", Live: q.Get("live") == "1"}
	v.FirstURL = "/events?" + f.values().Encode()
	if f.Text == "" { // a text search reads a bounded part of the log: no set to replay
		v.ReplayURL = "/replay?" + f.values().Encode()
	}

	list, err := c.svc.SearchEvents(r.Context(), f.api(), f.search(), cursor, eventsPageSize)
	if err != nil {
		status, msg := adminapi.StatusOf(err)
		if status >= 500 {
			c.fail(w, r, s, err)
			return
		}
		v.Error = msg
		c.renderStatus(w, r, s, status, "events", "Events", "events", v)
		return
	}
	v.Events = list.Events
	v.TextSearch = list.TextSearch
	if list.NextCursor != "" {
		next := f.values()
		next.Set("cursor", list.NextCursor)
		v.NextURL = "/events?" + next.Encode()
	}
	c.render(w, r, s, "events", "Events", "events", v)
}

// maxSearchIDs bounds the events a set named by an id prefix holds.
const maxSearchIDs = 1000

// searchIDs returns the hookrelay ids of the events f selects whose id or
// provider id starts with f.Q, at most maxSearchIDs; more is an error that
// asks for more of the id.
func (c *Console) searchIDs(ctx context.Context, f filterForm) ([]string, error) {
	var ids []string
	cursor := ""
	for {
		list, err := c.svc.SearchEvents(ctx, f.api(), adminwire.Search{Q: f.Q}, cursor, maxSearchIDs+1-len(ids))
		if err != nil {
			return nil, err
		}
		for _, e := range list.Events {
			ids = append(ids, e.ID)
		}
		if len(ids) > maxSearchIDs {
			return nil, fmt.Errorf("%w: more than %d events have an id that starts with %q; give more of the id", errTooMany, maxSearchIDs, f.Q)
		}
		if list.NextCursor == "" {
			return ids, nil
		}
		cursor = list.NextCursor
	}
}
