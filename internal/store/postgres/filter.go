package postgres

import (
	"encoding/json"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// dialect is PostgreSQL's SQL for the WHERE clause of an event filter:
// numbered placeholders, LIKE with '\' escapes for type globs, ids as a
// text array, on every column holding the event id, and times as
// timestamptz.
var dialect = sqlstore.Dialect{
	Placeholder: sqlstore.Dollar,
	Pattern:     sqlstore.LikePattern,
	TypeMatch:   `e.type LIKE %s ESCAPE '\'`,
	InIDs: func(w *sqlstore.Where, columns, ids []string) {
		for _, c := range columns {
			w.Add(c+" = ANY(%s::text[])", ids)
		}
	},
	Time: func(t time.Time) any { return t },
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
