package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

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
	ReplayURL string
}

// events answers GET /events: one page of events newest first, with the
// filters in the URL so that a page can be pasted into a chat.
func (c *Console) events(w http.ResponseWriter, r *http.Request, s *session) {
	q := r.URL.Query()
	f := filterFrom(q)
	cursor := q.Get("cursor")
	v := eventsView{Filter: f, Choices: c.choices(), Paged: cursor != "", Live: q.Get("live") == "1"}
	v.FirstURL = "/events?" + f.values().Encode()
	v.ReplayURL = "/replay?" + f.values().Encode()

	list, err := c.listEvents(r.Context(), f, cursor)
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
	if list.NextCursor != "" {
		next := f.values()
		next.Set("cursor", list.NextCursor)
		v.NextURL = "/events?" + next.Encode()
	}
	c.render(w, r, s, "events", "Events", "events", v)
}

// listEvents reads one page through the admin API's service. A provider
// event id (q) is looked up in the filter's source, or in every source.
func (c *Console) listEvents(ctx context.Context, f filterForm, cursor string) (adminwire.EventList, error) {
	api := f.api()
	if f.Q != "" {
		ids, err := c.byProviderID(ctx, f.Source, f.Q)
		if err != nil {
			return adminwire.EventList{}, err
		}
		if len(ids) == 0 {
			return adminwire.EventList{}, nil
		}
		api.IDs = ids
	}
	return c.svc.ListEvents(ctx, api, cursor, eventsPageSize)
}

// byProviderID returns the hookrelay ids of the events stored under a
// provider's id, in source or in every configured source.
func (c *Console) byProviderID(ctx context.Context, source, providerID string) ([]string, error) {
	sources := []string{source}
	if source == "" {
		sources = c.choices().Sources
	}
	var ids []string
	for _, src := range sources {
		ev, err := c.store.EventByProviderID(ctx, src, providerID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue
		case err != nil:
			return nil, fmt.Errorf("look up provider id: %w", err)
		}
		ids = append(ids, ev.ID)
	}
	return ids, nil
}
