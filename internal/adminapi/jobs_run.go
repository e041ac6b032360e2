package adminapi

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
	"github.com/hookrelay/hookrelay/internal/store"
)

// StartReplay checks a replay as POST /api/v1/replay does and starts it
// as a job: it counts the deliveries the filter matches (a dry run
// without an audit row: the replay writes its own), then re-arms them
// batch by batch. A mistake in the request is answered at once; the job
// is returned running.
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
	j, err := s.jobs.start(ctx, s, adminwire.JobReplay, actor, s.now(), replayJobRequest(filter, req.MaxBatch))
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
	j, err := s.jobs.start(ctx, s, adminwire.JobBackfill, actor, s.now(), adminwire.JobRequest{Destination: b.dest.Name, Since: b.since, Until: b.until})
	if err == nil {
		audit(ctx, "job", j.ID)
	}
	return j, err
}

// logJob writes the audit line of a job that ended: who started it, the
// node that ended it (and the one it took the job over from), and what it
// did.
func (s *Service) logJob(j *job, err error) {
	v := viewOf(j.record(), s.now())
	attrs := []any{keyToken, v.Actor, "job", v.ID, "kind", v.Kind, "node", v.Node, "total", v.Total, "done", v.Done, "last_event_id", v.LastEventID}
	if v.TakenOverFrom != "" {
		attrs = append(attrs, "taken_over_from", v.TakenOverFrom)
	}
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
