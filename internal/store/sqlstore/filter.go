package sqlstore

import (
	"fmt"
	"slices"

	"github.com/hookrelay/hookrelay/internal/store"
)

// FilterEvents adds the conditions of f for a statement on the events
// aliased e: those of the events themselves (see eventConds), and for a
// Destination or Status, that such a delivery of the event exists (for
// the status dead, that the event is among those of the dead deliveries). A bad
// glob or status is store.ErrBadFilter.
func (w *Where) FilterEvents(f store.EventFilter) error {
	if err := w.eventConds(f, ""); err != nil {
		return err
	}
	if f.Status == store.StatusDead {
		// Dead deliveries are few, and indexed by event (deliveries_dead):
		// the events are looked up from them rather than the whole log
		// looked through for them, which takes seconds at millions of
		// events when none has a dead delivery.
		cond := statusCondition(f.Status)
		if f.Destination != "" {
			cond += " AND d.destination = " + w.Arg(f.Destination)
		}
		w.Add("e.id IN (SELECT d.event_id FROM hookrelay.deliveries d WHERE " + cond + ")")
		return nil
	}
	if f.Destination != "" || f.Status != "" {
		cond := "d.event_id = e.id"
		if f.Destination != "" {
			cond += " AND d.destination = " + w.Arg(f.Destination)
		}
		if f.Status != "" {
			cond += " AND " + statusCondition(f.Status)
		}
		w.Add("EXISTS (SELECT 1 FROM hookrelay.deliveries d WHERE " + cond + ")")
	}
	return nil
}

// FilterDeliveries adds the conditions of f for a statement on the
// deliveries aliased d joined to their events aliased e: those of the
// events (see eventConds, with the window's id range on d.event_id too),
// and the deliveries' Destination and Status. A bad glob or status is
// store.ErrBadFilter.
func (w *Where) FilterDeliveries(f store.EventFilter) error {
	if err := w.eventConds(f, "d.event_id"); err != nil {
		return err
	}
	if f.Destination != "" {
		w.Add("d.destination = %s", f.Destination)
	}
	if f.Status != "" {
		w.Add(statusCondition(f.Status))
	}
	return nil
}

// eventConds adds the conditions of f on the events aliased e: ids,
// source, type glob and received_at window. A window adds the id range
// that contains it, on e.id and, when idColumn names another column
// holding the event id (such as d.event_id), on that one too, so that
// either side of a join can be read by range. A bad glob or status is
// store.ErrBadFilter.
func (w *Where) eventConds(f store.EventFilter, idColumn string) error {
	if f.Status != "" && !slices.Contains(store.Statuses, f.Status) {
		return fmt.Errorf("%w: unknown status %q", store.ErrBadFilter, f.Status)
	}
	ids := []string{"e.id"}
	if idColumn != "" {
		ids = append(ids, idColumn)
	}
	if len(f.IDs) > 0 {
		w.dialect.InIDs(w, ids, f.IDs)
	}
	if f.Source != "" {
		w.Add("e.source = %s", f.Source)
	}
	if f.Type != "" {
		pattern, exact, err := w.dialect.Pattern(f.Type)
		if err != nil {
			return err
		}
		if exact {
			w.Add("e.type = %s", pattern)
		} else {
			w.Add(w.dialect.TypeMatch, pattern)
		}
	}
	if !f.Since.IsZero() {
		w.Add("e.received_at >= %s", w.dialect.Time(f.Since))
		if id, ok := IDFrom(f.Since); ok {
			for _, c := range ids {
				w.Add(c+" >= %s", id)
			}
		}
	}
	if !f.Until.IsZero() {
		w.Add("e.received_at < %s", w.dialect.Time(f.Until))
		if id, ok := IDBefore(f.Until); ok {
			for _, c := range ids {
				w.Add(c+" < %s", id)
			}
		}
	}
	return nil
}

// statusCondition returns the condition d.status = st with st written
// as a literal, so that the planner can match it to the partial indexes
// of live and dead deliveries, whatever plan it caches for the
// statement; eventConds has checked that st is a status.
func statusCondition(st store.DeliveryStatus) string {
	return "d.status = '" + string(st) + "'"
}
