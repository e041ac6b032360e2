package adminapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminapi"
	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// testLease is the jobs' lease in these tests: a node that dies loses its
// job within about a second.
const testLease = time.Second

// stallingStore is a node's store that stops the node's job where a test
// kills the node: in its count (stallAfter 0) or after stallAfter batches
// of its walk. The job waits there, its lease renewed, until the test
// abandons the node (which ends the job's context): the node is then
// dead at that point, as if killed there.
type stallingStore struct {
	store.DB
	stallAfter int
	once       sync.Once
	stalled    chan struct{} // closed once the job waits
}

// stall tells the test the job waits, and waits for the node's death.
func (s *stallingStore) stall(ctx context.Context) error {
	s.once.Do(func() { close(s.stalled) })
	<-ctx.Done()
	return ctx.Err()
}

func (s *stallingStore) Replay(ctx context.Context, req store.ReplayRequest) (store.ReplayResult, error) {
	switch {
	case req.DryRun && s.stallAfter == 0:
		return store.ReplayResult{}, s.stall(ctx)
	case req.Job != nil && s.stallAfter > 0:
		progress, batches := req.Progress, 0
		req.Progress = func(done store.ReplayResult, last string) error {
			if batches++; batches == s.stallAfter {
				return s.stall(ctx)
			}
			return progress(done, last)
		}
	}
	return s.DB.Replay(ctx, req)
}

func (s *stallingStore) BackfillCandidates(ctx context.Context, destination string, sources []string, since, until time.Time, after string, limit int) ([]store.EventSummary, error) {
	if s.stallAfter == 0 {
		return nil, s.stall(ctx)
	}
	return s.DB.BackfillCandidates(ctx, destination, sources, since, until, after, limit)
}

// fleetNode is one node of a test's fleet: its admin API and its jobs.
type fleetNode struct {
	url  string
	jobs *adminapi.Jobs
	logs *syncBuffer
}

// startNode serves the admin API of the node name over st, with b's
// config, its jobs taking over those of dead nodes.
func startNode(t *testing.T, b *testBundle, st store.DB, name string) fleetNode {
	t.Helper()
	n := fleetNode{logs: &syncBuffer{}}
	logger := slog.New(slog.NewJSONHandler(n.logs, nil))
	n.jobs = adminapi.NewJobs(st, name, testLease, logger)
	srv := httptest.NewServer(adminapi.New(adminapi.Options{Store: st, Config: b.cfg, Logger: logger, Jobs: n.jobs}))
	n.url = srv.URL
	n.jobs.Start()
	t.Cleanup(func() {
		srv.Close()
		n.jobs.Close()
	})
	return n
}

// takeoverFleet sets up a database of the driver with events Stripe
// events, received with the base config, and starts two nodes on it with
// nodeConfig (nil: the base config): node-a, whose job stalls as
// stallAfter says, and node-b.
func takeoverFleet(t *testing.T, driver testdb.Driver, events, stallAfter int, nodeConfig *config.Config) (b *testBundle, a, other fleetNode, stalled <-chan struct{}) {
	t.Helper()
	b = setup(t, driver, nil)
	for i := range events {
		b.sendStripe(t, fmt.Sprintf("evt_takeover%d", i), "invoice.paid")
	}
	if nodeConfig != nil {
		b.cfg = nodeConfig
	}
	st := &stallingStore{DB: b.store, stallAfter: stallAfter, stalled: make(chan struct{})}
	return b, startNode(t, b, st, "node-a"), startNode(t, b, b.store, "node-b"), st.stalled
}

// startThenKill starts a job through node a with a POST of body to path,
// waits until it stalls there, calls meanwhile (when set) with its id,
// kills node a, and returns the job once node other has ended it.
func startThenKill(t *testing.T, a, other fleetNode, stalled <-chan struct{}, path string, body any, meanwhile func(id string)) adminwire.Job {
	t.Helper()
	var started adminwire.Job
	wantStatus(t, "start on a", call(t, a.url, adminToken, "POST", path, body, &started), 202)
	<-stalled
	if meanwhile != nil {
		meanwhile(started.ID)
	}
	a.jobs.Abandon()
	return waitJob(t, other.url, started.ID)
}

// checkOncePerDelivery fails unless every one of want deliveries was
// re-armed exactly once.
func checkOncePerDelivery(t *testing.T, counts map[int64]int, want int) {
	t.Helper()
	if len(counts) != want {
		t.Errorf("%d deliveries, want %d", len(counts), want)
	}
	for id, n := range counts {
		if n != 1 {
			t.Errorf("delivery %d re-armed %d times, want once", id, n)
		}
	}
}

// takeoverRows returns the job_takeover rows of the audit log as node
// shows them.
func takeoverRows(t *testing.T, node string) []adminwire.AuditEntry {
	t.Helper()
	var log adminwire.AuditLog
	wantStatus(t, "audit", call(t, node, readToken, "GET", "/api/v1/audit?since=2020-01-01T00:00:00Z", nil, &log), 200)
	var rows []adminwire.AuditEntry
	for _, e := range log.Entries {
		if e.Kind == store.AuditTakeover {
			rows = append(rows, e)
		}
	}
	return rows
}

// checkTakenOver checks that job, started on node-a, was taken over and
// ended by node-b, with one takeover row in the audit log, shown by both
// nodes, and the audit line of its end naming node-b.
func checkTakenOver(t *testing.T, a, other fleetNode, j adminwire.Job) {
	t.Helper()
	if j.Node != "node-b" || j.TakenOverFrom != "node-a" || j.Actor != "ops" || j.LeaseUntil != nil {
		t.Errorf("job = %+v, want it started by ops, taken over by node-b from node-a, and ended", j)
	}
	for _, node := range []string{a.url, other.url} {
		rows := takeoverRows(t, node)
		if len(rows) != 1 {
			t.Fatalf("takeover rows = %+v, want one", rows)
		}
		want := map[string]any{"job_id": j.ID, "job_kind": j.Kind, "from_node": "node-a", "to_node": "node-b"}
		if rows[0].Actor != "node-b" || fmt.Sprint(rows[0].Detail) != fmt.Sprint(want) {
			t.Errorf("takeover row = %+v, want %v by node-b", rows[0], want)
		}
	}
	ended := auditLines(t, other.logs, "audit: job ended")
	if len(ended) != 1 || ended[0]["node"] != "node-b" || ended[0]["taken_over_from"] != "node-a" || ended[0]["job"] != j.ID || ended[0]["token"] != "ops" {
		t.Errorf("node-b's job-ended lines = %v, want one naming node-b, from node-a", ended)
	}
	if got := auditLines(t, a.logs, "audit: job ended"); len(got) != 0 {
		t.Errorf("node-a, dead, wrote job-ended lines %v", got)
	}
}

// auditLines returns the log lines with message msg.
func auditLines(t *testing.T, logs *syncBuffer, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(logs.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// TestReplayJobTakenOver: node-a runs a replay job and dies in the middle
// of its walk, in the middle of an event whose deliveries its batches
// split; node-b takes the job over once node-a's lease has run out and
// finishes it from where node-a stopped. Every delivery is re-armed
// exactly once between the two nodes, the job counts them all, and the
// audit log names who started it, who took it over from whom, and who
// ended it.
func TestReplayJobTakenOver(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		const events, perEvent = 10, 3 // stripe's events go to billing, dev-alice and dev-bob
		b, a, other, stalled := takeoverFleet(t, driver, events, 7, nil)
		j := startThenKill(t, a, other, stalled, "/api/v1/jobs/replay", map[string]any{"source": "stripe", "max_batch": 1}, nil)
		if j.State != adminwire.JobDone || j.Total != events*perEvent || j.Done != j.Total || j.Replay == nil || j.Replay.Rearmed != j.Total {
			t.Fatalf("job = %+v (replay %+v), want done with all %d re-armed", j, j.Replay, events*perEvent)
		}
		checkOncePerDelivery(t, replayCounts(t, b.store, "stripe"), events*perEvent)
		checkTakenOver(t, a, other, j)
		if j.Request == nil || j.Request.Source != "stripe" || j.Request.MaxBatch != 1 {
			t.Errorf("request = %+v, want the replay of source stripe in batches of 1", j.Request)
		}
		// One replay row, node-b's, counting the whole job.
		var log adminwire.AuditLog
		wantStatus(t, "audit", call(t, other.url, readToken, "GET", "/api/v1/audit?since=2020-01-01T00:00:00Z", nil, &log), 200)
		var replays []adminwire.AuditEntry
		for _, e := range log.Entries {
			if e.Kind == "replay" {
				replays = append(replays, e)
			}
		}
		if len(replays) != 1 || replays[0].Rearmed != events*perEvent || replays[0].Actor != "ops" {
			t.Errorf("replay rows = %+v, want one counting all %d", replays, events*perEvent)
		}
	})
}

// TestReplayJobTakenOverWhileCounting: a job whose node dies while it
// counts is counted again by the node that takes it over, then walked.
func TestReplayJobTakenOverWhileCounting(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b, a, other, stalled := takeoverFleet(t, driver, 4, 0, nil)
		j := startThenKill(t, a, other, stalled, "/api/v1/jobs/replay",
			map[string]any{"source": "stripe", "destination": "billing", "max_batch": 1}, nil)
		if j.State != adminwire.JobDone || j.Total != 4 || j.Done != 4 || j.Replay == nil || j.Replay.Rearmed != 4 {
			t.Fatalf("job = %+v (replay %+v), want done with 4 of 4 re-armed", j, j.Replay)
		}
		rearmed := 0
		for _, n := range replayCounts(t, b.store, "stripe") {
			rearmed += n
		}
		if rearmed != 4 {
			t.Errorf("%d re-arms in the store, want the 4 deliveries to billing once each", rearmed)
		}
		checkTakenOver(t, a, other, j)
	})
}

// TestJobCancelledWhileOrphaned: a job cancelled after its node died ends
// as cancelled by the node that takes it over, without walking further.
func TestJobCancelledWhileOrphaned(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		b, a, other, stalled := takeoverFleet(t, driver, 6, 2, nil)
		// Cancelled through node-b while node-a, about to die, reads it
		// no more.
		j := startThenKill(t, a, other, stalled, "/api/v1/jobs/replay",
			map[string]any{"source": "stripe", "destination": "billing", "max_batch": 1}, func(id string) {
				wantStatus(t, "cancel on b", call(t, other.url, adminToken, "POST", "/api/v1/jobs/"+id+"/cancel", nil, nil), 200)
			})
		if j.State != adminwire.JobCancelled || j.CancelledBy != "ops" || j.Done != 2 || j.Total != 6 {
			t.Fatalf("job = %+v, want cancelled by ops after node-a's 2 batches", j)
		}
		if n := replayedDeliveries(t, b.store, "stripe"); n != 2 {
			t.Errorf("%d deliveries re-armed, want node-a's 2", n)
		}
		checkTakenOver(t, a, other, j)
	})
}

// TestBackfillJobTakenOver: a backfill job whose node dies is finished by
// the node that takes it over, with the destination of its own config.
func TestBackfillJobTakenOver(t *testing.T) {
	forEachDriver(t, func(t *testing.T, driver testdb.Driver) {
		// The nodes have a destination the receiver did not have.
		_, a, other, stalled := takeoverFleet(t, driver, 5, 0, parseConfig(t, `
  - name: late
    url: http://127.0.0.1:9/late
    secret: "${BILLING_SIGN}"
    sources: [stripe]
`))
		j := startThenKill(t, a, other, stalled, "/api/v1/jobs/backfill",
			map[string]any{"destination": "late", "since": "2020-01-01T00:00:00Z", "until": "2099-01-01T00:00:00Z"}, nil)
		if j.State != adminwire.JobDone || j.Total != 5 || j.Done != 5 || j.Backfill == nil || j.Backfill.Created != 5 {
			t.Fatalf("job = %+v (backfill %+v), want 5 created", j, j.Backfill)
		}
		checkTakenOver(t, a, other, j)
	})
}
