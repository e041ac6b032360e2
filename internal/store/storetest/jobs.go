package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testJobs records a job, saves its progress, has it asked to stop by
// another actor (which its next save reports), ends it, and lists jobs
// newest first; a finished job cannot be asked to stop. Another node's
// save of a job changes nothing.
func testJobs(t *testing.T, s store.DB) {
	ctx := context.Background()
	start := baseTime
	j := store.JobRecord{ID: "job_0001", Kind: "replay", Actor: "ops", State: "counting", Node: "node-a", StartedAt: start,
		Request: []byte(`{"source":"stripe"}`)}
	if err := s.CreateJob(ctx, j, time.Minute); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	if err := s.CreateJob(ctx, store.JobRecord{ID: "job_0002", Kind: "backfill", Actor: "ops", State: "counting", Node: "node-b", StartedAt: start.Add(time.Second)}, time.Minute); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	j.State, j.Total, j.RunningAt = "running", 10, start.Add(time.Second)
	if by, err := s.SaveJob(ctx, j, time.Minute); err != nil || by != "" {
		t.Fatalf("SaveJob = %q, %v; want no cancellation", by, err)
	}
	// The progress is the walk's: a page of it writes it (one that
	// creates nothing here).
	progress := store.JobProgress{Done: 4, LastEventID: "evt_4", LastDestination: "billing", Result: []byte(`{"matched":4}`)}
	tie := store.JobTie{ID: j.ID, Node: j.Node, Lease: time.Minute}
	if _, by, err := s.CreateJobDeliveries(ctx, nil, start, tie, func(int64) store.JobProgress { return progress }); err != nil || by != "" {
		t.Fatalf("CreateJobDeliveries = %q, %v; want no cancellation", by, err)
	}
	got, err := s.GetJob(ctx, "job_0001")
	if err != nil {
		t.Fatalf("GetJob: %v", err)
	}
	if got.State != "running" || got.Done != 4 || got.Total != 10 || got.LastEventID != "evt_4" || got.LastDestination != "billing" ||
		string(got.Result) != `{"matched":4}` || string(got.Request) != `{"source":"stripe"}` ||
		got.Node != "node-a" || got.TakenOverFrom != "" || !got.FinishedAt.IsZero() || got.LeaseUntil.IsZero() {
		t.Errorf("GetJob = %+v", got)
	}
	checkTime(t, "RunningAt", got.RunningAt, stored(start.Add(time.Second)))

	// Another node asks it to stop: the runner's next save says who.
	if c, err := s.CancelJob(ctx, "job_0001", "alice"); err != nil || c.CancelledBy != "alice" {
		t.Fatalf("CancelJob = %+v, %v", c, err)
	}
	if c, err := s.CancelJob(ctx, "job_0001", "bob"); err != nil || c.CancelledBy != "alice" {
		t.Errorf("a second CancelJob = %+v, %v; want the first ask kept", c, err)
	}
	if _, err := s.SaveJob(ctx, store.JobRecord{ID: "job_0001", Node: "node-b", State: "done"}, time.Minute); !errors.Is(err, store.ErrJobTaken) {
		t.Errorf("SaveJob by a node that does not hold the job: %v, want ErrJobTaken", err)
	}
	progress.Done = 5
	if _, by, err := s.CreateJobDeliveries(ctx, nil, start, tie, func(int64) store.JobProgress { return progress }); err != nil || by != "alice" {
		t.Fatalf("a page after the cancel = %q, %v; want alice", by, err)
	}
	if by, err := s.SaveJob(ctx, j, time.Minute); err != nil || by != "alice" {
		t.Fatalf("SaveJob after the cancel = %q, %v; want alice", by, err)
	}
	j.State, j.FinishedAt = "cancelled", start.Add(2*time.Second)
	if _, err := s.SaveJob(ctx, j, time.Minute); err != nil {
		t.Fatalf("SaveJob at the end: %v", err)
	}
	// job_0002 ends; asking it to stop then changes nothing.
	if _, err := s.SaveJob(ctx, store.JobRecord{ID: "job_0002", Kind: "backfill", State: "done", Node: "node-b", FinishedAt: start.Add(3 * time.Second)}, time.Minute); err != nil {
		t.Fatalf("SaveJob: %v", err)
	}
	if c, err := s.CancelJob(ctx, "job_0002", "alice"); err != nil || c.CancelledBy != "" || c.State != "done" {
		t.Errorf("CancelJob of an ended job = %+v, %v; want it untouched", c, err)
	}

	jobs, err := s.ListJobs(ctx)
	if err != nil {
		t.Fatalf("ListJobs: %v", err)
	}
	if len(jobs) != 2 || jobs[0].ID != "job_0002" || jobs[1].ID != "job_0001" || jobs[1].State != "cancelled" || jobs[1].Done != 5 {
		t.Errorf("ListJobs = %+v, want job_0002 then job_0001 (cancelled, 5 done)", jobs)
	}
	for _, call := range []func() error{
		func() error { _, err := s.GetJob(ctx, "job_none"); return err },
		func() error { _, err := s.CancelJob(ctx, "job_none", "alice"); return err },
		func() error { _, err := s.SaveJob(ctx, store.JobRecord{ID: "job_none"}, time.Minute); return err },
		func() error { return s.RenewJob(ctx, "job_none", "node-a", time.Minute) },
		func() error { _, err := s.TakeOverJob(ctx, "job_none", "node-a", time.Minute); return err },
	} {
		if err := call(); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("an unknown job: %v, want ErrNotFound", err)
		}
	}
}
