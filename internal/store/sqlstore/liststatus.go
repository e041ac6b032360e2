package sqlstore

import (
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

// listByStatus selects a page of the events that have a delivery in a
// status few deliveries are in, newest first, from the deliveries in that
// status: their partial index, walked down from the cursor in event_id
// order, each joined to its event by one probe of the events' key (%[3]s,
// Dialect.EventOfDelivery, which keeps the walk the outer loop). The
// conditions (%[1]s) hold the status as a literal, so that the planner
// matches the index, and, without a destination, keep only an event's
// first such delivery by destination (see firstInStatus); %[2]s is the
// placeholder of the limit.
const listByStatus = `SELECT ` + listColumns + `
FROM hookrelay.deliveries d %[3]s
WHERE %[1]s
ORDER BY d.event_id DESC
LIMIT %[2]s`

// firstInStatus holds for a delivery d when no other delivery of its
// event in the same status (%s, a literal) comes before it by
// destination: one probe of the (event_id, destination) entries of the
// event, so that an event with several such deliveries is listed once.
const firstInStatus = `NOT EXISTS (SELECT 1 FROM hookrelay.deliveries o
	WHERE o.event_id = d.event_id AND %s AND o.destination < d.destination)`

// fewInStatus are the statuses ListEvents finds from the deliveries in
// them rather than by looking through the events: each has a partial
// index of its deliveries by event (migrations 0003 and 0025). Pending
// and done are what most deliveries are: a walk down the events meets
// them at once.
var fewInStatus = map[store.DeliveryStatus]bool{
	store.StatusProcessing: true,
	store.StatusFailed:     true,
	store.StatusSkipped:    true,
	store.StatusDead:       true,
	store.StatusPurged:     true,
}

// NewStatusPage returns the page req asks for when its filter's status is
// one that few deliveries are in (see fewInStatus), as NewPage does,
// read by listByStatus: its cost follows the deliveries in that status
// it walks past, not the size of the log. ok is false for another status.
func NewStatusPage(d Dialect, req store.ListRequest) (p Page, ok bool, err error) {
	f := req.Filter
	if !fewInStatus[f.Status] {
		return Page{}, false, nil
	}
	limit := req.Limit
	if limit < 1 {
		limit = DefaultListLimit
	}
	w := NewWhere(d)
	if err := w.FilterDeliveries(f); err != nil {
		return Page{}, true, err
	}
	if f.Destination == "" {
		w.Add(fmt.Sprintf(firstInStatus, "o.status = '"+string(f.Status)+"'"))
	}
	if req.Cursor != "" {
		w.Add("d.event_id < %s", req.Cursor)
	}
	limitArg := w.Arg(limit + 1)
	return Page{Limit: limit, Query: fmt.Sprintf(listByStatus, w.SQL(), limitArg, d.EventOfDelivery), Args: w.Args()}, true, nil
}
