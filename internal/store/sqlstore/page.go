package sqlstore

import (
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

// DefaultListLimit is the page size of a ListRequest without a Limit.
const DefaultListLimit = 50

// maxPrealloc bounds the room made for a page before it is read, whatever
// the Limit asked.
const maxPrealloc = 1024

// Page is one page of ListEvents: the statement that reads its events,
// newest first by id, one more than its Limit to know whether another
// page follows.
type Page struct {
	// Limit is the page's size.
	Limit int
	// Query and Args are the statement and its arguments.
	Query string
	Args  []any
}

// NewPage returns the page req asks for: up to its Limit (DefaultListLimit
// below 1) of the events its Filter selects with ids below its Cursor,
// when set. listEvents is the driver's statement, with %[1]s for its
// conditions and %[2]s for the placeholder of its limit. A bad glob or
// status is store.ErrBadFilter. Each of more, when given, adds
// conditions of its own (a search's) after the filter's.
func NewPage(d Dialect, listEvents string, req store.ListRequest, more ...func(w *Where)) (Page, error) {
	limit := req.Limit
	if limit < 1 {
		limit = DefaultListLimit
	}
	w := NewWhere(d)
	if err := w.FilterEvents(req.Filter); err != nil {
		return Page{}, err
	}
	for _, add := range more {
		add(w)
	}
	if req.Cursor != "" {
		w.Add("e.id < %s", req.Cursor)
	}
	limitArg := w.Arg(limit + 1)
	return Page{Limit: limit, Query: fmt.Sprintf(listEvents, w.SQL(), limitArg), Args: w.Args()}, nil
}

// Room returns the room to make for the rows of p before they are read.
func (p Page) Room() int { return min(p.Limit+1, maxPrealloc) }

// Cut returns the page of the events p.Query read, and the cursor of the
// next page: the page's last id, or empty when no event follows.
func (p Page) Cut(events []store.EventSummary) ([]store.EventSummary, string) {
	if len(events) <= p.Limit {
		return events, ""
	}
	events = events[:p.Limit]
	return events, events[p.Limit-1].Event.ID
}

// AttachStates prepares to attach to events their deliveries' states,
// which a driver reads in one query: it returns the events' ids, for that
// query, and add, which appends one state read to its event's.
func AttachStates(events []store.EventSummary) (ids []string, add func(eventID string, st store.DeliveryState)) {
	ids = make([]string, len(events))
	index := make(map[string]int, len(events))
	for i, e := range events {
		ids[i], index[e.Event.ID] = e.Event.ID, i
	}
	return ids, func(eventID string, st store.DeliveryState) {
		i := index[eventID]
		events[i].Deliveries = append(events[i].Deliveries, st)
	}
}
