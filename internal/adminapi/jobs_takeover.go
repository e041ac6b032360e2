package adminapi

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// A job is its node's while its lease lasts (fleet.runner_lease): the
// node renews it with every batch the walk commits and every third of the
// lease in between (keepLease), so that a long count or batch keeps it.
// A node that dies stops renewing; every node sweeps for jobs whose lease
// ran out, every third of the lease, takes one over (store.TakeOverJob,
// which writes the audit row) and resumes it where its walk stopped. Each
// batch commits only while the job is still its node's (store.JobTie),
// so a node that comes back after a pause longer than the lease commits
// nothing more of a job another node took.

// Start has js take over, from now on, the jobs of the nodes that died:
// every third of the lease it looks for a job not finished whose lease
// ran out, takes one over and runs it with the newest Service. It is safe
// to call more than once; Close stops it.
func (js *Jobs) Start() {
	js.mu.Lock()
	defer js.mu.Unlock()
	if js.closed || js.stopSweep != nil {
		return
	}
	ctx, cancel := context.WithCancel(js.life)
	js.stopSweep = cancel
	js.wg.Go(func() {
		t := time.NewTicker(js.lease / 3)
		defer t.Stop()
		for {
			js.sweep(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}

// sweep takes over one job whose lease ran out, if there is one, and
// runs it.
func (js *Jobs) sweep(ctx context.Context) {
	ids, err := js.store.ExpiredJobs(ctx)
	if err != nil {
		if ctx.Err() == nil {
			js.logger.Warn("look for jobs to take over", "error", err)
		}
		return
	}
	for _, id := range ids {
		js.mu.Lock()
		svc, mine := js.svc, js.running[id] != nil
		js.mu.Unlock()
		if mine || svc == nil {
			continue // this process runs it, and renews it late; or it cannot run one
		}
		rec, err := js.store.TakeOverJob(ctx, id, js.node, js.lease)
		switch {
		case errors.Is(err, store.ErrJobTaken) || errors.Is(err, store.ErrNotFound):
			continue // another node was first, or it ended
		case err != nil:
			if ctx.Err() == nil {
				js.logger.Warn("take over job", "job", id, "error", err)
			}
			return
		}
		js.logger.Log(context.Background(), slog.LevelInfo, "audit: job taken over", keyToken, rec.Actor, "job", rec.ID,
			"kind", rec.Kind, "from_node", rec.TakenOverFrom, "node", rec.Node, "done", rec.Done, "total", rec.Total,
			"last_event_id", rec.LastEventID)
		js.mu.Lock()
		if js.closed {
			js.logger.Warn("job taken over as this process stops: another node takes it over once its lease runs out", "job", id)
		} else {
			js.run(js.svc, rec)
		}
		js.mu.Unlock()
		return
	}
}

// keepLease renews the job's lease every third of it until stop is
// closed, so that a count or a batch that runs long keeps the job.
func (j *job) keepLease(stop <-chan struct{}) {
	js := j.js
	t := time.NewTicker(js.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-js.life.Done():
			return
		case <-t.C:
		}
		rec := j.record()
		ctx, cancel := context.WithTimeout(js.life, js.lease/3)
		err := js.store.RenewJob(ctx, rec.ID, rec.Node, js.lease)
		cancel()
		switch {
		case errors.Is(err, store.ErrJobTaken):
			return // the walk finds out at its next batch, and stops
		case err != nil && js.life.Err() == nil:
			js.logger.Warn("renew job lease", "job", rec.ID, "error", err)
		}
	}
}
