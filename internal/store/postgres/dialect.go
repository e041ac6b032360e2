package postgres

import (
	"time"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// dialect is PostgreSQL's SQL for the WHERE clause of an event filter:
// numbered placeholders, LIKE with '\' escapes for type globs, ids as a
// text array, on every column holding the event id, and times as
// timestamptz. Beyond filters: the delivery counts are the sums of
// appended deltas (see FoldCounts), and so are the activity counters'
// minutes until folded.
// timestamptz. Lists of rows are arrays, one a column, unnested, so that
// a batch of any size is one statement of few arguments. The rows a
// transaction reads to rewrite are locked FOR NO KEY UPDATE, which does
// not hold off the inserts of rows that reference them (a delivery of an
// event being re-sealed); deliveries made due again are announced with
// pg_notify.
// timestamptz. Lists are arrays; rows are locked against concurrent
// writers; a batch of a replay is selected and re-armed in one
// statement, commits without waiting for the flush and wakes the
// listeners of what it re-armed, two stretches at once.
var dialect = sqlstore.Dialect{
	Placeholder:  sqlstore.Dollar,
	Pattern:      sqlstore.LikePattern,
	TypeMatch:    `e.type LIKE %s ESCAPE '\'`,
	BodyContains: "position(%s::bytea IN e.body) > 0",
	InIDs: func(w *sqlstore.Where, columns, ids []string) {
		for _, c := range columns {
			w.Add(c+" = ANY(%s::text[])", ids)
		}
	},
	Time: func(t time.Time) any { return t },
	// A join may become a merge join that walks the events' key down from
	// the newest; a lateral subquery that OFFSET 0 keeps from being
	// flattened into a join is a probe per delivery.
	EventOfDelivery: "CROSS JOIN LATERAL (SELECT * FROM hookrelay.events x WHERE x.id = d.event_id OFFSET 0) AS e",
	FailureCounts:   "hookrelay.failure_count_deltas",
	CountsTable:     "hookrelay.delivery_count_deltas",
	DeferredLeases:  deferredLeases,
	ActivityDeltas:  "hookrelay.activity_deltas",
	HasMigrations:   `SELECT to_regclass('hookrelay.schema_migrations') IS NOT NULL`,
	Migrations:      migrationFiles,
	Rows:            sqlstore.UnnestRows,
	Notify:          notifyDestinations,
	List:            func(vs any) any { return vs },
	InList:          "%[1]s = ANY(%[2]s::%[3]s[])",
	JSONRows:        "jsonb_array_elements(%s::jsonb)",
	RowLocks:        true,
	AsyncCommit:     asyncCommit,
	RetireLock:      retireShared,
	ReplayStretches: replayStretches,
	RearmBatch:      rearmBatch,
	BackfillIDs:     backfillIDs,
	ResetIdentity:   resetIdentity,
	KeepIDs:         "OVERRIDING SYSTEM VALUE",
	Now:             "SELECT clock_timestamp()",
}

// replayStretches is how many stretches of a replay are re-armed at once:
// each is a transaction of its own that keeps one server process busy.
const replayStretches = 2
