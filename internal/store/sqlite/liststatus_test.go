package sqlite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// TestStatusPagePlans checks that a page of the events with a delivery in
// a status few deliveries are in walks the deliveries in that status down
// their index, and probes the events by key, never scanning either table:
// for each such status, with and without a destination, a source and a
// cursor, on a database without statistics (SQLite's is never analyzed).
func TestStatusPagePlans(t *testing.T) {
	t.Parallel()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	indexes := map[store.DeliveryStatus]string{
		store.StatusFailed:     "deliveries_failed",
		store.StatusDead:       "deliveries_dead",
		store.StatusSkipped:    "deliveries_skipped",
		store.StatusPurged:     "deliveries_purged",
		store.StatusProcessing: "deliveries_processing_events",
	}
	for status, index := range indexes {
		for _, req := range []store.ListRequest{
			{Filter: store.EventFilter{Status: status}},
			{Filter: store.EventFilter{Status: status, Destination: "billing", Source: "stripe"}, Cursor: "01KJSGHA6VEC3RC188GGCD7BEF"},
		} {
			p, ok, err := sqlstore.NewStatusPage(dialect, req)
			if err != nil || !ok {
				t.Fatalf("NewStatusPage(%+v) = %v, %v", req, ok, err)
			}
			plan := queryPlan(t, s, p.Query, p.Args...)
			text := strings.Join(plan, "\n")
			first := plan[0]
			// The processing deliveries of one destination may be read
			// from the claim's index of them, as many as its leases out,
			// and sorted.
			leases := status == store.StatusProcessing && req.Filter.Destination != "" &&
				strings.Contains(first, "deliveries_processing (destination=?)")
			if !leases && (!strings.Contains(first, " d USING ") || !strings.Contains(first, index)) {
				t.Errorf("%+v: the plan starts with %q, want a walk of d by %s:\n%s", req, first, index, text)
			}
			for _, line := range plan {
				if (strings.HasPrefix(line, "SCAN") && !strings.Contains(line, "INDEX")) ||
					(strings.Contains(line, " e ") && !strings.HasPrefix(line, "SEARCH")) {
					t.Errorf("%+v: the plan reads a table whole (%q):\n%s", req, line, text)
				}
			}
			if !leases && strings.Contains(text, "TEMP B-TREE") {
				t.Errorf("%+v: the plan sorts, want the index's order:\n%s", req, text)
			}
		}
	}
}
