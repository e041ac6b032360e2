package sqlite

import (
	"encoding/json"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// dialect is SQLite's SQL for the WHERE clause of an event filter: ?
// placeholders, GLOB for type globs, ids as a JSON array matched on e.id
// alone, and times as unix microseconds.
var dialect = sqlstore.Dialect{
	Placeholder: sqlstore.Question,
	Pattern:     sqlstore.GlobPattern,
	TypeMatch:   "e.type GLOB %s",
	InIDs: func(w *sqlstore.Where, columns, ids []string) {
		w.Add(columns[0]+" IN (SELECT value FROM json_each(%s))", jsonArray(ids))
	},
	Time: func(t time.Time) any { return micros(t) },
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
