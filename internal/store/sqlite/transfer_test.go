package sqlite_test

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store/sqlite"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// TestTransferCoversSchema checks that a copy moves every table and
// column of the migrated schema but the migrations' record, the delivery
// counts, failure counts and activity counters the triggers keep, the
// console's sessions, the fleet's leases, rejection counts and alert
// marks, the leases of deferred deliveries, whose rows the source writes
// before it counts (TableCounts), and SQLite's own AUTOINCREMENT record.
func TestTransferCoversSchema(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hookrelay.db")
	storetest.Migrated(t, func(ctx context.Context) (*sqlite.Store, error) {
		return sqlite.Open(ctx, path, slog.New(slog.DiscardHandler))
	})
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table'`)
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
		name, ok := strings.CutPrefix(table, sqlstore.SQLitePrefix)
		if !ok && table != "sqlite_sequence" { // SQLite's own
			t.Errorf("table %s has no %s prefix: it could be an application's", table, sqlstore.SQLitePrefix)
		}
		if !ok {
			continue
		}
		table = name
		columns[table] = append(columns[table], column)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	storetest.CheckTransferSchema(t, columns, "schema_migrations", "delivery_counts", "failure_counts", "activity_minutes", "nodes", "jobs", "console_sessions",
		"fleet_leases", "rejection_counts", "alert_marks", "delivery_leases")
}
