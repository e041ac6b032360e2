package postgres_test

import (
	"testing"

	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// TestTransferCoversSchema checks that a copy moves every table and
// column of the migrated schema but the migrations' record, the
// delivery counts, failure counts and activity counters the triggers
// write, the console's sessions, and the fleet's leases, rejection
// counts and alert marks; nor the dedupe keys (event_keys, a view over
// events unpartitioned) and the attempts' event ids, which an import
// derives; nor the leases of deferred deliveries, whose rows the source
// writes before it counts (TableCounts).
func TestTransferCoversSchema(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	// A partition's rows are copied through its parent (partitioned
	// event logs, PartitionsEnv).
	rows, err := s.Pool().Query(t.Context(), `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema()
			AND NOT coalesce((SELECT relispartition FROM pg_class WHERE oid = to_regclass(quote_ident(table_name))), false)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	columns := map[string][]string{}
	for rows.Next() {
		var table, column string
		if err := rows.Scan(&table, &column); err != nil {
			t.Fatal(err)
		}
		columns[table] = append(columns[table], column)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	storetest.CheckTransferSchema(t, columns, "schema_migrations", "delivery_count_deltas", "failure_count_deltas", "activity_minutes", "activity_deltas", "nodes", "jobs", "console_sessions",
		"fleet_leases", "rejection_counts", "alert_marks", "event_keys", "attempts.event_id", "delivery_leases")
}
