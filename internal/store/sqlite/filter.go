package sqlite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// where collects the conditions of a query built for one filter, and
// their arguments, in the order of their ? placeholders. Only the fields
// a filter sets become conditions, so that each shape of filter is a
// statement of its own that the planner can fit to an index.
type where struct {
	conds []string
	args  []any
}

// add adds a condition: format with one ? per value.
func (w *where) add(cond string, vs ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, vs...)
}

// sql returns the conditions joined by AND, or true when there are none.
func (w *where) sql() string {
	if len(w.conds) == 0 {
		return "true"
	}
	return strings.Join(w.conds, "\n\tAND ")
}

// eventConds adds the conditions of f on the events aliased e: ids,
// source, type glob and received_at window. A window adds the id range
// that contains it, on e.id and, when idColumn names another column
// holding the event id (such as d.event_id), on that one too, so that
// either side of a join can be read by range. A bad glob or status is
// store.ErrBadFilter.
func eventConds(w *where, f store.EventFilter, idColumn string) error {
	if f.Status != "" && !slices.Contains(store.Statuses, f.Status) {
		return fmt.Errorf("%w: unknown status %q", store.ErrBadFilter, f.Status)
	}
	ids := []string{"e.id"}
	if idColumn != "" {
		ids = append(ids, idColumn)
	}
	if len(f.IDs) > 0 {
		w.add("e.id IN (SELECT value FROM json_each(?))", jsonArray(f.IDs))
	}
	if f.Source != "" {
		w.add("e.source = ?", f.Source)
	}
	if f.Type != "" {
		pattern, exact, err := sqlstore.GlobPattern(f.Type)
		if err != nil {
			return err
		}
		if exact {
			w.add("e.type = ?", pattern)
		} else {
			w.add("e.type GLOB ?", pattern)
		}
	}
	if !f.Since.IsZero() {
		w.add("e.received_at >= ?", micros(f.Since))
		if id, ok := sqlstore.IDFrom(f.Since); ok {
			for _, c := range ids {
				w.add(c+" >= ?", id)
			}
		}
	}
	if !f.Until.IsZero() {
		w.add("e.received_at < ?", micros(f.Until))
		if id, ok := sqlstore.IDBefore(f.Until); ok {
			for _, c := range ids {
				w.add(c+" < ?", id)
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

// filterJSON is a filter as the audit log records it.
type filterJSON struct {
	IDs         []string `json:"ids,omitempty"`
	Source      string   `json:"source,omitempty"`
	Type        string   `json:"type,omitempty"`
	Destination string   `json:"destination,omitempty"`
	Status      string   `json:"status,omitempty"`
	Since       string   `json:"since,omitempty"`
	Until       string   `json:"until,omitempty"`
}

// auditFilter returns f as the JSON of an audit row.
func auditFilter(f store.EventFilter) string {
	b, _ := json.Marshal(filterJSON{ // cannot fail for strings
		IDs: f.IDs, Source: f.Source, Type: f.Type, Destination: f.Destination, Status: string(f.Status),
		Since: auditTime(f.Since), Until: auditTime(f.Until),
	})
	return string(b)
}

// auditTime formats t for an audit row; the zero time is empty.
func auditTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
