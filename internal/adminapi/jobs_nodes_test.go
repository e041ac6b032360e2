package adminapi_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestJobsAcrossNodes runs two admin APIs on one database, as two nodes
// of a fleet: a replay job started through one is listed, with its node
// and progress, by the other, and cancelled through it; the node that runs
// it stops between two batches, and the job names who cancelled it.
func TestJobsAcrossNodes(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b := setup(t, driver, nil)
		node := func(name string) string {
			srv := httptest.NewServer(adminapi.New(adminapi.Options{
				Store: b.store, Config: b.cfg, Logger: slog.New(slog.DiscardHandler),
				Jobs: adminapi.NewJobs(b.store, name, 0, nil),
			}))
			t.Cleanup(srv.Close)
			return srv.URL
		}
		a, other := node("node-a"), node("node-b")
		const n = 150
		for i := range n {
			b.sendStripe(t, fmt.Sprintf("evt_nodes%d", i), "invoice.paid")
		}
		var started adminwire.Job
		wantStatus(t, "start on a", call(t, a, adminToken, "POST", "/api/v1/jobs/replay",
			map[string]any{"source": "stripe", "destination": "billing", "max_batch": 1}, &started), 202)

		var seen adminwire.Job
		wantStatus(t, "show on b", call(t, other, readToken, "GET", "/api/v1/jobs/"+started.ID, nil, &seen), 200)
		if seen.Node != "node-a" || seen.Actor != "ops" {
			t.Errorf("the job as b shows it = %+v, want node-a's, started by ops", seen)
		}
		var cancelled adminwire.Job
		wantStatus(t, "cancel on b", call(t, other, adminToken, "POST", "/api/v1/jobs/"+started.ID+"/cancel", nil, &cancelled), 200)
		j := waitJob(t, other, started.ID)
		if j.State != adminwire.JobCancelled || j.CancelledBy != "ops" || j.Done >= n {
			t.Fatalf("job after the cancel through b = %+v, want cancelled by ops before its end", j)
		}
		var rearmed int64
		if j.Replay != nil {
			rearmed = j.Replay.Rearmed
		}
		if got := replayedDeliveries(t, b.store, "stripe"); got != rearmed {
			t.Errorf("the job says %d re-armed; the store has %d", rearmed, got)
		}
		var list adminwire.JobList
		wantStatus(t, "list on b", call(t, other, readToken, "GET", "/api/v1/jobs", nil, &list), 200)
		if len(list.Jobs) != 1 || list.Jobs[0].ID != started.ID || list.Jobs[0].State != adminwire.JobCancelled {
			t.Errorf("jobs b lists = %+v", list.Jobs)
		}
		t.Logf("cancelled through the other node after %d of %d", rearmed, j.Total)
	})
}
