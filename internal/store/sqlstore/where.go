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
// Notify, AsyncCommit, RearmBatch, ResetIdentity and KeepIDs, which are empty where
// the database has no such thing. Adding an operation to Ops should need
// at most one new field here, set in each driver's dialect.go.
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
	// DeferredLeases is a SELECT of the deliveries delivery_leases
	// holds, leased at ingest with their rows deferred
	// (store.Lease.Deferred), written or not: rows of (id, event_id,
	// destination, lease_until), from the batches' lists. It reads the
	// leases of the deliveries in flight alone, however long the history;
	// see deferredInFlight.
	DeferredLeases string
	// FailureCounts is the table the triggers keep the failure counts in:
	// rows of (destination, status, kind, n) whose sum for a group is its
	// count of failed or dead deliveries.
	FailureCounts string
	// EventOfDelivery joins to a delivery d that a statement walks in
	// index order its event, as e, by one probe of the events' key a
	// delivery, never reordering the two: a walk of the events would
	// read the log between two deliveries.
	EventOfDelivery string
	// ActivityDeltas is the table of the activity counters' deltas not
	// yet folded, read with the folded minutes (see Activity); empty when
	// the triggers count into the minutes' rows themselves (SQLite).
	ActivityDeltas string
	// HasMigrations is a statement whose one row is true when the table
	// of applied migrations, hookrelay.schema_migrations, exists where the
	// store keeps its tables.
	HasMigrations string
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
	// Notify is the statement that tells the listening processes that
	// deliveries of some destinations are due (its one argument, a list
	// of names), run in the transaction that makes them due; empty when
	// the driver has no listeners.
	Notify string
	// List binds a list of values, a []string or a []int64, as InList
	// and the driver's statements read one: a JSON array (SQLite) or an
	// array (PostgreSQL).
	List func(vs any) any
	// InList is the condition that a column (%[1]s) is one of the values
	// of a list bound with List at a placeholder (%[2]s), of SQL type
	// %[3]s: text or bigint.
	InList string
	// JSONRows is the table, of one column named value, of the elements
	// of a JSON array bound at a placeholder (%s); ->> reads their
	// fields.
	JSONRows string
	// RowLocks tells that statements lock the rows they read, FOR UPDATE
	// or FOR SHARE, against concurrent writers (PostgreSQL); without it
	// they leave their locking clauses out, one writer at a time making
	// them needless (SQLite).
	RowLocks bool
	// AsyncCommit, when set, lets the transaction it runs in commit
	// without waiting for the flush of its log: for the batches of a
	// long write, before the last commit that waits for it.
	AsyncCommit string
	// RetireLock, when set, is run first by every transaction that can
	// make a finished delivery live again or give a stored event a new
	// delivery (a replay's re-arming, a backfill's creating): on
	// PostgreSQL, the shared side of the lock a drop of a time partition
	// holds while it counts and drops that partition's deliveries.
	RetireLock string
	// ReplayBatch is how many deliveries one transaction of a replay
	// re-arms, and ReplayStretches how many stretches of a replay may be
	// re-armed at once (see RangeReplayer); 1 re-arms them in turn.
	ReplayBatch, ReplayStretches int
	// RearmBatch, when set, selects and re-arms a batch of a replay in
	// one statement, where the database writes from a WITH query
	// (PostgreSQL): %[1]s is a statement that returns the id, event_id,
	// destination and status of the batch's deliveries, %[2]s the
	// assignments that re-arm a delivery d, and %[3]s the condition that
	// d may be re-armed. It returns how many it selected, how many of
	// those were processing, how many it re-armed, the last key, and the
	// destinations it re-armed. Without it a batch is read, then re-armed
	// by id.
	RearmBatch string
	// BackfillIDs selects the ids of up to ?6 events of the sources of a
	// list bound with List at ?1, with ids after ?2 in [?3, ?4) (the
	// window's id range) and received in [?7, ?8), in id order, that
	// were not purged and have no delivery to destination ?5: the
	// candidates of a backfill, whose columns BackfillCandidates reads.
	BackfillIDs string
	// ResetIdentity, when set, makes the ids the database generates for
	// the table it names (%s) follow the largest one it holds, after an
	// import of ids.
	ResetIdentity string
	// KeepIDs is what an INSERT of deliveries with the ids they were
	// given writes before its SELECT: OVERRIDING SYSTEM VALUE where the
	// database generates them always.
	KeepIDs string
	// Now, when set, is a statement whose one row is the database's
	// clock, which decides when a lease runs out, so that processes
	// whose clocks disagree agree on it; empty means the process's
	// clock, where the processes that share the database run on one
	// machine (SQLite).
	Now string
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
