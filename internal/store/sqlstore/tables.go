package sqlstore

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// DefaultSchema is the PostgreSQL schema hookrelay keeps its tables in
// unless told otherwise.
const DefaultSchema = "hookrelay"

// tableMarker is how every statement names hookrelay's tables, functions
// and (where a driver qualifies them) indexes: hookrelay.events — their
// place under DefaultSchema, so that on PostgreSQL's default a statement
// runs as it is written.
const tableMarker = "hookrelay."

// SQLitePrefix begins the name of every table hookrelay keeps in a SQLite
// database, which has no schemas: hookrelay.events is hookrelay_events.
const SQLitePrefix = "hookrelay_"

// Tables says where a store keeps hookrelay's tables: under a PostgreSQL
// schema (InSchema) or with SQLitePrefix (Prefixed). Its zero value is
// DefaultSchema, where statements run as written.
type Tables struct {
	prefix string // what replaces tableMarker; "" leaves it
}

var validSchema = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// InSchema returns the tables under a PostgreSQL schema: lower-case
// letters, digits and '_', not beginning with a digit nor with pg_
// (PostgreSQL's own); "" means DefaultSchema.
func InSchema(schema string) (Tables, error) {
	switch {
	case schema == "" || schema == DefaultSchema:
		return Tables{}, nil
	case !validSchema.MatchString(schema) || strings.HasPrefix(schema, "pg_"):
		return Tables{}, fmt.Errorf("schema %q: want lower-case letters, digits and '_', not beginning with a digit or pg_", schema)
	}
	return Tables{prefix: `"` + schema + `".`}, nil
}

// Prefixed returns the tables of a SQLite database: hookrelay_events.
func Prefixed() Tables { return Tables{prefix: SQLitePrefix} }

// Schema returns the PostgreSQL schema of t.
func (t Tables) Schema() string {
	if t.prefix == "" {
		return DefaultSchema
	}
	return strings.Trim(t.prefix, `".`)
}

// Name returns where t keeps the table (or function) name: events is
// hookrelay.events under DefaultSchema, hookrelay_events on SQLite.
func (t Tables) Name(name string) string { return t.Rewrite(tableMarker + name) }

// Rewrite returns query with every hookrelay.NAME — the marker as a word
// of its own, followed by a name — naming t's table instead. Quoted text
// is rewritten too: a statement that names a table in a string
// (to_regclass('hookrelay.events'), a DO block's EXECUTE) means the same
// table.
func (t Tables) Rewrite(query string) string {
	if t.prefix == "" || !strings.Contains(query, tableMarker) {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	rest := query
	for {
		i := strings.Index(rest, tableMarker)
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		end := i + len(tableMarker)
		if (i > 0 && isWordByte(rest[i-1])) || end == len(rest) || !isWordByte(rest[end]) {
			b.WriteString(rest[:end])
		} else {
			b.WriteString(rest[:i])
			b.WriteString(t.prefix)
		}
		rest = rest[end:]
	}
}

// isWordByte reports whether c may be part of an unquoted SQL name.
func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Rewriter turns a statement written for Conn into the one a store runs:
// its tables named where the store keeps them (Tables) and, when Dollar is
// set, its placeholders numbered (Rebind). The statements are few and
// repeat, so each is rewritten once. Its zero value keeps both as written.
type Rewriter struct {
	Tables Tables
	Dollar bool

	cache sync.Map // string → string
}

// SQL returns query rewritten, from the cache after the first time.
func (r *Rewriter) SQL(query string) string {
	if q, ok := r.cache.Load(query); ok {
		return q.(string)
	}
	q := r.Tables.Rewrite(query)
	if r.Dollar {
		q = Rebind(q)
	}
	r.cache.Store(query, q)
	return q
}

// TableNames are the tables the migrations create, unqualified: what a
// store moves in beside the rest when it finds them where an earlier
// version created them, unqualified, next to the application's (see the
// drivers' Migrate).
var TableNames = []string{
	"schema_migrations", "events", "deliveries", "attempts", "replays", "rejections", "paused_destinations",
	"instance_keys", "ingest_counts", "handler_destinations", "secret_slot_hours", "secret_hours", "activity_minutes",
	"activity_deltas", "delivery_counts", "delivery_count_deltas", "failure_counts", "failure_count_deltas", "nodes", "jobs",
	"console_sessions",
	"fleet_leases", "rejection_counts", "alert_marks",
	"signature_digests", "event_keys",
}

// FirstSchema returns the first schema a PostgreSQL search_path names,
// unquoted, or "" when it names none or begins with "$user".
func FirstSchema(searchPath string) string {
	first, _, _ := strings.Cut(searchPath, ",")
	first = strings.TrimSpace(first)
	if unquoted, ok := strings.CutPrefix(first, `"`); ok {
		first = strings.TrimSuffix(unquoted, `"`)
	} else {
		first = strings.ToLower(first)
	}
	if first == "$user" {
		return ""
	}
	return first
}
