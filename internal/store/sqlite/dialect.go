package sqlite

import (
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// dialect is SQLite's SQL for the WHERE clause of an event filter: ?
// placeholders, GLOB for type globs, ids as a JSON array matched on one
// column alone — the deliveries' event_id in a replay's walk, which reads
// the deliveries first, else e.id — and times as unix microseconds.
// Beyond filters: the delivery counts are one row per destination and
// status, and the activity counters one row per minute.
// the deliveries first, else e.id — and times as unix microseconds. Lists
// of rows are VALUES lists. Its write transactions hold off every other
// writer, so it locks no rows, and it has no listeners to notify.
// the deliveries first, else e.id — and times as unix microseconds. Lists
// are JSON arrays read with json_each. With one writer, statements take
// no row locks, no listener is woken, and a replay's batches run in turn.
// An AUTOINCREMENT table carries on after the largest id ever inserted,
// imported ones included, so an import resets nothing.
var dialect = sqlstore.Dialect{
	Placeholder:  sqlstore.Question,
	Pattern:      sqlstore.GlobPattern,
	TypeMatch:    "e.type GLOB %s",
	BodyContains: "instr(e.body, %s) > 0", // both BLOBs: a byte search
	InIDs: func(w *sqlstore.Where, columns, ids []string) {
		w.Add(columns[len(columns)-1]+" IN (SELECT value FROM json_each(%s))", jsonArray(ids))
	},
	Time: func(t time.Time) any { return micros(t) },
	// SQLite's planner never reorders the tables of a CROSS JOIN.
	EventOfDelivery: "CROSS JOIN hookrelay.events e ON e.id = d.event_id",
	FailureCounts:   "hookrelay.failure_counts",
	CountsTable:     "hookrelay.delivery_counts",
	DeferredLeases:  deferredLeases,
	HasMigrations:   `SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'hookrelay.schema_migrations'`,
	Migrations:      migrationFiles,
	Rows:            sqlstore.ValuesRows,
	List: func(vs any) any {
		switch vs := vs.(type) {
		case []string:
			return jsonArray(vs)
		case []int64:
			return jsonArray(vs)
		}
		panic(fmt.Sprintf("sqlite: a list of %T", vs))
	},
	InList:          "%[1]s IN (SELECT value FROM json_each(%[2]s))",
	JSONRows:        "json_each(%s)",
	ReplayStretches: 1,
	BackfillIDs:     backfillIDs,
}
