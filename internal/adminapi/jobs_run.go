package adminapi

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

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

// StartReplay checks a replay as POST /api/v1/replay does and starts it
// as a job: it counts the deliveries the filter matches (a dry run
// without an audit row: the replay writes its own), then re-arms them
// batch by batch. A mistake in the
// request is answered at once; the job is returned running.
func (s *Service) StartReplay(ctx context.Context, actor string, req adminwire.JobReplayRequest) (adminwire.Job, error) {
	if req.DryRun {
		return adminwire.Job{}, badRequest("a dry run is not a job: POST /api/v1/replay answers it at once")
	}
	if req.MaxBatch < 0 {
		return adminwire.Job{}, badRequest("max_batch: want a positive number of deliveries")
	}
	filter, err := s.replayFilter(ctx, req.ReplayRequest)
	if err != nil {
		return adminwire.Job{}, err
	}
	audit(ctx, "filter", req.Filter)
	j, err := s.jobs.start(ctx, adminwire.JobReplay, actor, s.now(), func(j *job) error {
		count, err := s.store.Replay(j.ctx, store.ReplayRequest{Filter: filter, DryRun: true, NoAuditRow: true, Actor: actor, Now: s.now()})
		if err != nil {
			return err
		}
		j.counted(count.Matched, s.now())
		// The walk is not cancelled in the middle of a batch: it stops
		// between two, so that what it reports is what it did.
		res, err := s.replay(context.WithoutCancel(j.ctx), store.ReplayRequest{
			Filter: filter, Actor: actor, Now: s.now(), MaxBatch: jobBatch(req.MaxBatch, count.Matched),
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
		s.logJob(j, err)
		return err
	})
	if err == nil {
		audit(ctx, "job", j.ID)
	}
	return j, err
}

// StartBackfill checks a backfill as POST /api/v1/backfill does and starts
// it as a job: it counts the rows the destination lacks, then creates them
// page by page.
func (s *Service) StartBackfill(ctx context.Context, actor string, req adminwire.BackfillRequest) (adminwire.Job, error) {
	if req.DryRun {
		return adminwire.Job{}, badRequest("a dry run is not a job: POST /api/v1/backfill answers it at once")
	}
	b, err := s.backfillOf(req)
	if err != nil {
		return adminwire.Job{}, err
	}
	audit(ctx, keyDestination, b.dest.Name, "since", req.Since, "until", req.Until)
	j, err := s.jobs.start(ctx, adminwire.JobBackfill, actor, s.now(), func(j *job) error {
		count, err := s.createMissing(j.ctx, b.dest, b.since, b.until, true, s.now(), nil)
		if err != nil {
			return err
		}
		j.counted(count.Matched, s.now())
		res, err := s.runBackfill(context.WithoutCancel(j.ctx), actor, b, false, func(done adminwire.BackfillResult, last string) error {
			return j.progressed(func(v *adminwire.Job) {
				v.Done, v.LastEventID, v.Backfill = done.Matched, last, &done
			})
		})
		_ = j.progressed(func(v *adminwire.Job) { v.Done, v.Backfill = res.Matched, &res })
		s.logJob(j, err)
		return err
	})
	if err == nil {
		audit(ctx, "job", j.ID)
	}
	return j, err
}

// logJob writes the audit line of a job that ended: who started it and
// what it did.
func (s *Service) logJob(j *job, err error) {
	v := viewOf(j.record(), s.now())
	attrs := []any{keyToken, v.Actor, "job", v.ID, "kind", v.Kind, "node", v.Node, "total", v.Total, "done", v.Done, "last_event_id", v.LastEventID}
	if v.CancelledBy != "" {
		attrs = append(attrs, "cancelled_by", v.CancelledBy)
	}
	if v.Replay != nil {
		attrs = append(attrs, "rearmed", v.Replay.Rearmed, "in_flight", v.Replay.InFlight)
	}
	if v.Backfill != nil {
		attrs = append(attrs, "created", v.Backfill.Created)
	}
	if err != nil {
		attrs = append(attrs, keyError, err)
	}
	s.logger.Log(context.Background(), slog.LevelInfo, "audit: job ended", attrs...)
}

// Job returns the job with id, as it is now, whichever node runs it; an
// unknown id is a 404.
func (s *Service) Job(ctx context.Context, id string) (adminwire.Job, error) {
	rec, err := s.jobs.get(ctx, id)
	if err != nil {
		return adminwire.Job{}, err
	}
	return viewOf(rec, s.now()), nil
}

// WaitJob waits until the job with id has ended, and returns it as it
// ended; an unknown id is a 404. A job another node runs is read again
// every jobPoll. When ctx ends first, it returns the job as it is then,
// with ctx's error.
func (s *Service) WaitJob(ctx context.Context, id string) (adminwire.Job, error) {
	if j, ok := s.jobs.local(id); ok {
		select {
		case <-j.done:
		case <-ctx.Done():
		}
	}
	t := time.NewTicker(jobPoll)
	defer t.Stop()
	for {
		rec, err := s.jobs.get(context.WithoutCancel(ctx), id)
		switch {
		case err != nil:
			return adminwire.Job{}, err
		case !rec.FinishedAt.IsZero():
			return viewOf(rec, s.now()), nil
		}
		select {
		case <-ctx.Done():
			return viewOf(rec, s.now()), ctx.Err()
		case <-t.C:
		}
	}
}

// errNoJob is the answer to a job id no node knows.
func errNoJob(id string) error {
	return notFound("no job %q", id)
}

// ListJobs returns the jobs of every node, newest first.
func (s *Service) ListJobs(ctx context.Context) (adminwire.JobList, error) {
	jobs, err := s.jobs.list(ctx, s.now())
	if err != nil {
		return adminwire.JobList{}, err
	}
	return adminwire.JobList{Jobs: jobs}, nil
}

// CancelJob asks a job to stop between two batches, for actor, whichever
// node runs it, and returns it; it ends as cancelled, keeping what it
// did. Cancelling a job that ended changes nothing.
func (s *Service) CancelJob(ctx context.Context, actor, id string) (adminwire.Job, error) {
	rec, err := s.jobs.store.CancelJob(ctx, id, actor)
	if errors.Is(err, store.ErrNotFound) {
		return adminwire.Job{}, errNoJob(id)
	} else if err != nil {
		return adminwire.Job{}, err
	}
	audit(ctx, "job", id, "node", rec.Node)
	if j, ok := s.jobs.local(id); ok {
		j.cancel()
	}
	return viewOf(rec, s.now()), nil
}
