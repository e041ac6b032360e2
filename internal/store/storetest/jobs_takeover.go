package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// expired is a lease that has run out as soon as it is given: a job
// created or renewed with it may be taken over at once.
const expired = -time.Second

// testJobTakeover: a job whose lease ran out is listed as expired and
// taken over by one node, which then holds it: the node that had it can
// neither save nor renew it, and no other node takes it while its lease
// runs. The takeover writes an audit row naming both nodes. A job whose
// lease runs, or that has finished, is not taken.
func testJobTakeover(t *testing.T, s store.DB) {
	ctx := context.Background()
	live := store.JobRecord{ID: "job_live", Kind: "replay", Actor: "ops", State: "running", Node: "node-a", StartedAt: baseTime}
	dead := store.JobRecord{ID: "job_dead", Kind: "backfill", Actor: "ops", State: "running", Node: "node-a", StartedAt: baseTime,
		Request: []byte(`{"destination":"late"}`)}
	ended := store.JobRecord{ID: "job_ended", Kind: "replay", Actor: "ops", State: "counting", Node: "node-a", StartedAt: baseTime}
	for _, j := range []struct {
		rec   store.JobRecord
		lease time.Duration
	}{{live, time.Minute}, {dead, expired}, {ended, expired}} {
		if err := s.CreateJob(ctx, j.rec, j.lease); err != nil {
			t.Fatalf("CreateJob %s: %v", j.rec.ID, err)
		}
	}
	ended.State, ended.FinishedAt = "done", baseTime.Add(time.Second)
	if _, err := s.SaveJob(ctx, ended, expired); err != nil {
		t.Fatalf("SaveJob: %v", err)
	}
	ids, err := s.ExpiredJobs(ctx)
	if err != nil || len(ids) != 1 || ids[0] != dead.ID {
		t.Fatalf("ExpiredJobs = %v, %v; want [%s]", ids, err, dead.ID)
	}
	for _, id := range []string{live.ID, ended.ID} {
		if _, err := s.TakeOverJob(ctx, id, "node-b", time.Minute); !errors.Is(err, store.ErrJobTaken) {
			t.Errorf("TakeOverJob(%s), not free: %v, want ErrJobTaken", id, err)
		}
	}

	got, err := s.TakeOverJob(ctx, dead.ID, "node-b", time.Minute)
	if err != nil {
		t.Fatalf("TakeOverJob: %v", err)
	}
	if got.Node != "node-b" || got.TakenOverFrom != "node-a" || got.State != "running" || string(got.Request) != string(dead.Request) {
		t.Errorf("the job taken over = %+v, want node-b's, from node-a, as it was", got)
	}
	if again, err := s.GetJob(ctx, dead.ID); err != nil || again.Node != "node-b" || again.TakenOverFrom != "node-a" || !again.LeaseUntil.After(got.LeaseUntil.Add(-time.Second)) {
		t.Errorf("GetJob after the takeover = %+v, %v", again, err)
	}
	if ids, err := s.ExpiredJobs(ctx); err != nil || len(ids) != 0 {
		t.Errorf("ExpiredJobs after the takeover = %v, %v; want none", ids, err)
	}
	if _, err := s.TakeOverJob(ctx, dead.ID, "node-c", time.Minute); !errors.Is(err, store.ErrJobTaken) {
		t.Errorf("a second takeover while node-b's lease runs: %v, want ErrJobTaken", err)
	}
	// The node that had it comes back: it writes nothing.
	if _, err := s.SaveJob(ctx, store.JobRecord{ID: dead.ID, Node: "node-a", State: "done", Done: 99}, time.Minute); !errors.Is(err, store.ErrJobTaken) {
		t.Errorf("SaveJob by the node that lost the job: %v, want ErrJobTaken", err)
	}
	if err := s.RenewJob(ctx, dead.ID, "node-a", time.Minute); !errors.Is(err, store.ErrJobTaken) {
		t.Errorf("RenewJob by the node that lost the job: %v, want ErrJobTaken", err)
	}
	if err := s.RenewJob(ctx, dead.ID, "node-b", time.Minute); err != nil {
		t.Errorf("RenewJob by its node: %v", err)
	}
	if j, err := s.GetJob(ctx, dead.ID); err != nil || j.Done != 0 || j.State != "running" {
		t.Errorf("the job after the old node's writes = %+v, %v; want it untouched", j, err)
	}

	rows, err := s.AuditLog(ctx, time.Unix(0, 0), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Kind != store.AuditTakeover || rows[0].Actor != "node-b" {
		t.Fatalf("audit rows %+v, want the takeover alone, by node-b", rows)
	}
	var detail map[string]string
	if err := json.Unmarshal([]byte(rows[0].Detail), &detail); err != nil ||
		detail["job_id"] != dead.ID || detail["job_kind"] != "backfill" || detail["from_node"] != "node-a" || detail["to_node"] != "node-b" {
		t.Errorf("takeover detail %s, %v", rows[0].Detail, err)
	}
}

// testJobTakeoverOnce: of many nodes that try at once to take over one
// job, one takes it, the others get ErrJobTaken, and one audit row is
// written.
func testJobTakeoverOnce(t *testing.T, s store.DB) {
	ctx := context.Background()
	if err := s.CreateJob(ctx, store.JobRecord{ID: "job_race", Kind: "replay", Actor: "ops", State: "running", Node: "node-0", StartedAt: baseTime}, expired); err != nil {
		t.Fatal(err)
	}
	const nodes = 8
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		taken []string
	)
	for i := range nodes {
		wg.Go(func() {
			node := fmt.Sprintf("node-%d", i+1)
			_, err := s.TakeOverJob(ctx, "job_race", node, time.Minute)
			switch {
			case err == nil:
				mu.Lock()
				taken = append(taken, node)
				mu.Unlock()
			case !errors.Is(err, store.ErrJobTaken):
				t.Errorf("TakeOverJob by %s: %v", node, err)
			}
		})
	}
	wg.Wait()
	j, err := s.GetJob(ctx, "job_race")
	if err != nil || len(taken) != 1 || j.Node != taken[0] {
		t.Fatalf("taken by %v; the job is %+v, %v; want one node", taken, j, err)
	}
	if rows, err := s.AuditLog(ctx, time.Unix(0, 0), 10); err != nil || len(rows) != 1 {
		t.Errorf("audit rows %+v, %v; want one takeover", rows, err)
	}
}

// replayJobResult is how the tests below keep a replay's totals in its
// job's result.
func replayJobResult(t *testing.T, b []byte) store.ReplayResult {
	t.Helper()
	var r store.ReplayResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("job result %q: %v", b, err)
	}
	return r
}

// tiedReplay is a replay of f in batches of one delivery tied to the job id as
// node's, whose lease runs out as each batch commits; after, when set,
// runs after each batch, with the number of batches so far.
func tiedReplay(f store.EventFilter, id, node string, resume store.ReplayResume, after func(batches int) error) store.ReplayRequest {
	batches := 0
	return store.ReplayRequest{
		Filter: f, Actor: "ops", Now: baseTime.Add(time.Minute), MaxBatch: 1, Resume: resume,
		Job: &store.JobTie{ID: id, Node: node, Lease: expired},
		JobProgress: func(done store.ReplayResult, last store.ReplayKey) store.JobProgress {
			b, _ := json.Marshal(done) // cannot fail for integers
			return store.JobProgress{Done: done.Matched, LastEventID: last.EventID, LastDestination: last.Destination, Result: b}
		},
		Progress: func(store.ReplayResult, string) error {
			batches++
			if after == nil {
				return nil
			}
			return after(batches)
		},
	}
}

// testJobTiedReplay: each batch of a replay tied to a job commits with
// the job's progress, and only while the job is its node's. Node a's walk
// loses the job to node b after its third batch: its fourth batch is
// rolled back, it stops with ErrJobTaken and writes no audit row. Node b
// resumes after the delivery the job last reached — in the middle of an
// event, whose two deliveries the batches split — and re-arms exactly the
// rest: every delivery is re-armed once, and b's audit row counts the
// whole replay.
func testJobTiedReplay(t *testing.T, s store.DB) {
	ctx := context.Background()
	var events []store.Event
	for i := range 4 {
		e := eventAt("stripe", fmt.Sprintf("evt_tied%d", i), baseTime.Add(time.Duration(i)*time.Millisecond))
		ingest(t, s, item(e, "billing", "crm"))
		events = append(events, e)
	}
	const id = "job_tied"
	if err := s.CreateJob(ctx, store.JobRecord{ID: id, Kind: "replay", Actor: "ops", State: "running", Node: "node-a", StartedAt: baseTime}, time.Minute); err != nil {
		t.Fatal(err)
	}
	f := store.EventFilter{Source: "stripe"}
	res, err := s.Replay(ctx, tiedReplay(f, id, "node-a", store.ReplayResume{}, func(batches int) error {
		if batches == 3 {
			_, err := s.TakeOverJob(ctx, id, "node-b", time.Minute)
			return err
		}
		return nil
	}))
	if !errors.Is(err, store.ErrJobTaken) || res.Rearmed != 3 {
		t.Fatalf("node a's walk = %+v, %v; want 3 re-armed, then ErrJobTaken", res, err)
	}
	j, err := s.GetJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	// Three deliveries in (event, destination) order: both of event 0,
	// then event 1's to billing, not yet its to crm.
	if j.Node != "node-b" || j.Done != 3 || j.LastEventID != events[1].ID || j.LastDestination != "billing" ||
		replayJobResult(t, j.Result) != (store.ReplayResult{Matched: 3, Rearmed: 3}) {
		t.Fatalf("the job after node a's walk = %+v, want node-b's with node a's three batches", j)
	}
	if rows, err := s.AuditLog(ctx, time.Unix(0, 0), 10); err != nil || len(rows) != 1 || rows[0].Kind != store.AuditTakeover {
		t.Errorf("audit rows after node a's walk: %+v, %v; want the takeover alone", rows, err)
	}

	resume := store.ReplayResume{After: store.ReplayKey{EventID: j.LastEventID, Destination: j.LastDestination}, Done: replayJobResult(t, j.Result)}
	res, err = s.Replay(ctx, tiedReplay(f, id, "node-b", resume, nil))
	if err != nil || res != (store.ReplayResult{Matched: 8, Rearmed: 8}) {
		t.Fatalf("node b's walk = %+v, %v; want all 8 counted", res, err)
	}
	for _, e := range events {
		for _, d := range deliveries(t, s, e.ID) {
			if d.ReplayCount != 1 {
				t.Errorf("%s to %s re-armed %d times, want once", e.ID, d.Destination, d.ReplayCount)
			}
		}
	}
	j, err = s.GetJob(ctx, id)
	if err != nil || j.Done != 8 || j.LastEventID != events[3].ID || j.LastDestination != "crm" {
		t.Errorf("the job after node b's walk = %+v, %v", j, err)
	}
	rows, err := s.AuditLog(ctx, time.Unix(0, 0), 10)
	if err != nil || len(rows) != 2 || rows[0].Kind != "replay" || rows[0].Rearmed != 8 || rows[0].Matched != 8 {
		t.Errorf("audit rows %+v, %v; want node b's replay row, counting all 8, after the takeover", rows, err)
	}
}

// testJobTiedReplayCancel: a tied walk ends with ErrJobCancelled after the
// batch that finds the job cancelled, keeping that batch.
func testJobTiedReplayCancel(t *testing.T, s store.DB) {
	ctx := context.Background()
	for i := range 4 {
		ingest(t, s, item(eventAt("stripe", fmt.Sprintf("evt_tc%d", i), baseTime.Add(time.Duration(i)*time.Millisecond)), "billing", "crm"))
	}
	const id = "job_tied_cancel"
	if err := s.CreateJob(ctx, store.JobRecord{ID: id, Kind: "replay", Actor: "ops", State: "running", Node: "node-a", StartedAt: baseTime}, time.Minute); err != nil {
		t.Fatal(err)
	}
	res, err := s.Replay(ctx, tiedReplay(store.EventFilter{Source: "stripe"}, id, "node-a", store.ReplayResume{}, func(batches int) error {
		if batches == 3 {
			_, err := s.CancelJob(ctx, id, "alice")
			return err
		}
		return nil
	}))
	if !errors.Is(err, store.ErrJobCancelled) || res.Rearmed != 4 {
		t.Fatalf("cancelled walk = %+v, %v; want 4 re-armed (the batch that saw the cancel kept), then ErrJobCancelled", res, err)
	}
	if j, err := s.GetJob(ctx, id); err != nil || j.Done != 4 || j.CancelledBy != "alice" {
		t.Errorf("the job = %+v, %v", j, err)
	}
}

// testJobTiedBackfill: a backfill page tied to a job creates its
// deliveries with the job's progress, while the job is its node's; once
// another node took the job over, the page creates nothing.
func testJobTiedBackfill(t *testing.T, s store.DB) {
	ctx := context.Background()
	var events []store.Event
	for i := range 2 {
		e := eventAt("stripe", fmt.Sprintf("evt_tb%d", i), baseTime.Add(time.Duration(i)*time.Millisecond))
		ingest(t, s, item(e, "billing"))
		events = append(events, e)
	}
	const id = "job_tied_backfill"
	if err := s.CreateJob(ctx, store.JobRecord{ID: id, Kind: "backfill", Actor: "ops", State: "running", Node: "node-a", StartedAt: baseTime}, time.Minute); err != nil {
		t.Fatal(err)
	}
	page := func(e store.Event, node string) (int64, error) {
		n, _, err := s.CreateJobDeliveries(ctx, []store.BackfillDelivery{{EventID: e.ID, Destination: "late"}}, baseTime.Add(time.Minute),
			store.JobTie{ID: id, Node: node, Lease: expired}, func(created int64) store.JobProgress {
				return store.JobProgress{Done: 1, LastEventID: e.ID, Result: fmt.Appendf(nil, `{"created":%d}`, created)}
			})
		return n, err
	}
	if n, err := page(events[0], "node-a"); err != nil || n != 1 {
		t.Fatalf("the first page: %d, %v", n, err)
	}
	if j, err := s.GetJob(ctx, id); err != nil || j.LastEventID != events[0].ID || string(j.Result) != `{"created":1}` {
		t.Errorf("the job after the first page = %+v, %v", j, err)
	}
	if _, err := s.TakeOverJob(ctx, id, "node-b", time.Minute); err != nil {
		t.Fatal(err)
	}
	if n, err := page(events[1], "node-a"); !errors.Is(err, store.ErrJobTaken) || n != 0 {
		t.Errorf("a page of the node that lost the job: %d, %v; want ErrJobTaken", n, err)
	}
	if ds := deliveries(t, s, events[1].ID); len(ds) != 1 {
		t.Errorf("%s has %d deliveries after the page rolled back, want its one", events[1].ID, len(ds))
	}
	if n, err := page(events[1], "node-b"); err != nil || n != 1 {
		t.Errorf("the page of the node that took the job: %d, %v", n, err)
	}
}
