package sqlite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// TestConsoleSessionLookupPlan checks that the read each console request
// makes of its session is one search of the primary key.
func TestConsoleSessionLookupPlan(t *testing.T) {
	t.Parallel()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	plan := queryPlan(t, s, sqlstore.ConsoleSessionLookup, []byte("key"), int64(0))
	if len(plan) != 1 || !strings.HasPrefix(plan[0], "SEARCH hookrelay_console_sessions USING PRIMARY KEY (key_digest=?)") {
		t.Errorf("plan of the session lookup:\n%s\nwant one search of the primary key", strings.Join(plan, "\n"))
	}
}

// queryPlan returns the lines of SQLite's plan of query, written as Ops
// writes it, with args.
func queryPlan(t *testing.T, s *Store, query string, args ...any) []string {
	t.Helper()
	rows, err := s.reader.Query(s.rewriter.SQL("EXPLAIN QUERY PLAN "+query), args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}
