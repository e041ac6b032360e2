package sqlstore

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// Dialect is how a driver's SQL differs: in the WHERE clause of an event
// filter, and in the statements of Ops. Its fields are all set, but
// LockRows and Notify, which may be empty.
type Dialect struct {
	// Placeholder returns the placeholder of a statement's nth argument,
	// from 1: Question or Dollar.
	Placeholder func(n int) string
	// Pattern checks an event-type glob and translates it for TypeMatch:
	// GlobPattern or LikePattern.
	Pattern func(glob string) (pattern string, exact bool, err error)
	// TypeMatch is the condition that e.type matches a pattern, with one
	// %s for the pattern's placeholder.
	TypeMatch string
	// BodyContains is the condition that e.body holds the bytes of a
	// text search, with one %s for their placeholder: a byte search,
	// which neither database can answer from an index.
	BodyContains string
	// InIDs adds to w the condition that the event is one of ids. columns
	// name the columns that hold the event id: e.id, then the other one
	// when the statement joins one (such as d.event_id).
	InIDs func(w *Where, columns, ids []string)
	// Time returns t as the driver stores a time, to compare with
	// e.received_at.
	Time func(t time.Time) any
	// CountsTable is the table the triggers keep the delivery counts in:
	// rows of (destination, status, n) whose sum for a destination and
	// status is its count.
	CountsTable string
	// MicrosSince is an integer expression of the whole microseconds from
	// one stored time to a later one, with two %s: the later, then the
	// earlier.
	MicrosSince string
	// HasTable is a statement whose one row is true when the table its
	// one argument names exists where the store keeps its tables. It is
	// written with ?, as the statements of Ops are, whatever Placeholder.
	HasTable string
	// Migrations holds the driver's numbered migrations, in its
	// directory migrations (see ReadMigrations).
	Migrations fs.FS
	// Rows returns a FROM item named u that lists rows, each of one
	// value per column, its columns named column1, column2, …, and the
	// arguments it takes: a VALUES list, or one array per column
	// unnested, which binds any number of rows with one argument per
	// column: ValuesRows or UnnestRows. types are the PostgreSQL types
	// of the columns (text, bytea, bigint), for the arrays. Its
	// placeholders are ?, for a Conn.
	Rows func(types []string, rows [][]any) (from string, args []any)
	// LockRows ends a SELECT whose rows the transaction then updates, to
	// hold off other writers of those rows until it ends; empty when a
	// write transaction already holds off every other writer.
	LockRows string
	// Notify is the statement that tells the listening processes that
	// deliveries of some destinations are due (its one argument, a list
	// of names), run in the transaction that makes them due; empty when
	// the driver has no listeners.
	Notify string
}

// Question is SQLite's placeholder, ?, whatever the argument's number.
func Question(int) string { return "?" }

// Dollar is PostgreSQL's placeholder of the nth argument, $n.
func Dollar(n int) string { return "$" + strconv.Itoa(n) }

// Where collects the conditions of a statement built for one filter, and
// their arguments. Only the fields a filter sets become conditions, so
// that each shape of filter is a statement of its own that the planner
// can fit to an index.
//
// With Question placeholders the arguments are taken in the order they
// were added, so a condition's must be added as the condition is, before
// those of the conditions that follow it.
type Where struct {
	dialect Dialect
	conds   []string
	args    []any
}

// NewWhere returns a Where of dialect d whose arguments start with args,
// those the statement takes before its conditions'.
func NewWhere(d Dialect, args ...any) *Where {
	return &Where{dialect: d, args: args}
}

// Arg adds an argument and returns its placeholder.
func (w *Where) Arg(v any) string {
	w.args = append(w.args, v)
	return w.dialect.Placeholder(len(w.args))
}

// Add adds a condition: format with one %s per value, each replaced by
// its placeholder. A condition without values is added as it is.
func (w *Where) Add(format string, vs ...any) {
	if len(vs) == 0 {
		w.conds = append(w.conds, format)
		return
	}
	ph := make([]any, len(vs))
	for i, v := range vs {
		ph[i] = w.Arg(v)
	}
	w.conds = append(w.conds, fmt.Sprintf(format, ph...))
}

// SQL returns the conditions joined by AND, or true when there are none.
func (w *Where) SQL() string {
	if len(w.conds) == 0 {
		return "true"
	}
	return strings.Join(w.conds, "\n\tAND ")
}

// Args returns the arguments of the statement, in order.
func (w *Where) Args() []any { return w.args }
