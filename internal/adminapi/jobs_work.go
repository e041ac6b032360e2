package adminapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/config"
	"github.com/hookrelay/hookrelay/internal/store"
)

// errNoRequest fails a job taken over that keeps no request: one started
// by a version that did not keep it.
var errNoRequest = errors.New("the job keeps no request to resume from: it was started by an earlier version")

// replayJobRequest is the request of a replay job of filter, as the job
// keeps it (JSON, in its record's Request).
func replayJobRequest(f store.EventFilter, maxBatch int) adminwire.JobRequest {
	return adminwire.JobRequest{IDs: f.IDs, Source: f.Source, Type: f.Type, Destination: f.Destination, Status: string(f.Status),
		Since: f.Since, Until: f.Until, MaxBatch: maxBatch}
}

// requestFilter is the replay filter of a job's request.
func requestFilter(r adminwire.JobRequest) store.EventFilter {
	return store.EventFilter{IDs: r.IDs, Source: r.Source, Type: r.Type, Destination: r.Destination,
		Status: store.DeliveryStatus(r.Status), Since: r.Since, Until: r.Until}
}

// minJobBatch is the smallest batch a job's walk takes by default; a job
// takes a hundredth of its total when that is more (and never more than
// the store's own batch), so that its progress moves in about a hundred
// steps.
const minJobBatch = 100

// jobBatch returns the batch of a job's walk: req's max_batch when set,
// else a hundredth of the total, at least minJobBatch.
func jobBatch(maxBatch int, total int64) int {
	if maxBatch > 0 {
		return maxBatch
	}
	return int(max(total/100, minJobBatch))
}

// runJob runs the job j with the service's store and config: a job
// started here, or one taken over from a node that died, which resumes
// where its walk stopped (and counts again when it had not counted). A
// job someone asked to stop while no node ran it ends as cancelled
// without walking.
func (s *Service) runJob(j *job) error {
	rec := j.record()
	if rec.CancelledBy != "" {
		return errJobCancelled
	}
	var req adminwire.JobRequest
	if len(rec.Request) == 0 {
		return errNoRequest
	}
	if err := json.Unmarshal(rec.Request, &req); err != nil {
		return fmt.Errorf("read the job's request: %w", err)
	}
	switch rec.Kind {
	case adminwire.JobReplay:
		return s.runReplayJob(j, req)
	case adminwire.JobBackfill:
		return s.runBackfillJob(j, req)
	}
	return fmt.Errorf("unknown kind of job %q", rec.Kind)
}

// runReplayJob counts the deliveries of the replay job j, unless it
// counted already, then re-arms them batch by batch from where the walk
// stopped, each batch committed with the job's progress (see
// store.ReplayRequest.Job).
func (s *Service) runReplayJob(j *job, req adminwire.JobRequest) error {
	filter := requestFilter(req)
	rec := j.record()
	if rec.State == adminwire.JobCounting {
		count, err := s.store.Replay(j.ctx, store.ReplayRequest{Filter: filter, DryRun: true, NoAuditRow: true, Actor: rec.Actor, Now: s.now()})
		if err != nil {
			return err
		}
		if err := j.counted(count.Matched, s.now()); err != nil {
			return err
		}
		rec = j.record()
	}
	var resume store.ReplayResume
	if rec.LastEventID != "" {
		v := viewOf(rec, time.Time{})
		resume.After = store.ReplayKey{EventID: rec.LastEventID, Destination: rec.LastDestination}
		if v.Replay != nil {
			resume.Done = store.ReplayResult{Matched: v.Replay.Matched, Rearmed: v.Replay.Rearmed, InFlight: v.Replay.InFlight}
		}
	}
	tie := j.tie()
	res, err := s.replay(j.walkContext(), store.ReplayRequest{
		Filter: filter, Actor: rec.Actor, Now: s.now(), MaxBatch: jobBatch(req.MaxBatch, rec.Total), Resume: resume,
		Job: &tie,
		JobProgress: func(done store.ReplayResult, last store.ReplayKey) store.JobProgress {
			r := adminwire.ReplayResult{Matched: done.Matched, Rearmed: done.Rearmed, InFlight: done.InFlight}
			return store.JobProgress{Done: done.Matched, LastEventID: last.EventID, LastDestination: last.Destination,
				Result: resultOf(adminwire.Job{Replay: &r})}
		},
		Progress: func(done store.ReplayResult, last string) error {
			if done.Rearmed > 0 {
				s.wakeReplayed(filter.Destination)
			}
			return j.progressed(func(v *adminwire.Job) {
				v.Done, v.LastEventID = done.Matched, last
				v.Replay = &adminwire.ReplayResult{Matched: done.Matched, Rearmed: done.Rearmed, InFlight: done.InFlight}
			})
		},
	})
	_ = j.progressed(func(v *adminwire.Job) { v.Done, v.Replay = res.Matched, &res })
	return err
}

// runBackfillJob counts the rows the backfill job j would create, unless
// it counted already, then creates them page by page from where the walk
// stopped, each page committed with the job's progress. The destination
// is the running config's.
func (s *Service) runBackfillJob(j *job, req adminwire.JobRequest) error {
	dest, ok := s.cfg.Destination(req.Destination)
	if !ok {
		return errors.New(config.UnknownName("destination", req.Destination, s.cfg.DestinationNames()))
	}
	rec := j.record()
	if rec.State == adminwire.JobCounting {
		count, err := s.createMissing(j.ctx, dest, req.Since, req.Until, true, s.now(), backfillWalk{})
		if err != nil {
			return err
		}
		if err := j.counted(count.Matched, s.now()); err != nil {
			return err
		}
		rec = j.record()
	}
	w := backfillWalk{after: rec.LastEventID, job: j, progress: func(done adminwire.BackfillResult, last string) error {
		return j.progressed(func(v *adminwire.Job) {
			v.Done, v.LastEventID, v.Backfill = done.Matched, last, &done
		})
	}}
	if v := viewOf(rec, time.Time{}); v.Backfill != nil {
		w.done = *v.Backfill
	}
	b := backfillRun{dest: dest, since: req.Since, until: req.Until}
	res, err := s.runBackfill(j.walkContext(), rec.Actor, b, false, w)
	_ = j.progressed(func(v *adminwire.Job) { v.Done, v.Backfill = res.Matched, &res })
	return err
}
