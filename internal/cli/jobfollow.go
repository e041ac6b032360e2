package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// jobClient is what following a job needs of the admin API.
type jobClient interface {
	Job(ctx context.Context, id string) (adminwire.Job, error)
	CancelJob(ctx context.Context, id string) (adminwire.Job, error)
}

// pollEvery is how often a followed job is asked for its progress.
const pollEvery = 250 * time.Millisecond

// cancelWait bounds the wait for a cancelled job to stop.
const cancelWait = time.Minute

// followJob asks for j's progress until it ends, showing it with p. An
// interrupt (Ctrl-C, SIGTERM) cancels the job on the relay and waits until
// it has stopped between two batches, so that what it reports done is
// what is done; interrupted is then true. It returns the job as it ended.
func followJob(ctx context.Context, c jobClient, j adminwire.Job, p *progress) (ended adminwire.Job, interrupted bool, err error) {
	sig, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer p.end()
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for j.FinishedAt == nil {
		select {
		case <-t.C:
			next, err := c.Job(sig, j.ID)
			if err == nil {
				j = next
				p.show(j, time.Now())
				continue
			}
			if sig.Err() == nil || ctx.Err() != nil {
				return j, false, err
			}
			// The interrupt cut this call short; it is seen next.
		case <-sig.Done():
			if ctx.Err() != nil {
				return j, false, fmt.Errorf("follow %s %s: %w", j.Kind, j.ID, ctx.Err())
			}
			p.end()
			fmt.Fprintf(p.w, "interrupted: cancelling %s %s, which stops between two batches\n", j.Kind, j.ID)
			j, err = cancelJob(context.WithoutCancel(ctx), c, j)
			return j, true, err
		}
	}
	return j, false, nil
}

// cancelJob cancels j on the relay and waits until it has ended.
func cancelJob(ctx context.Context, c jobClient, j adminwire.Job) (adminwire.Job, error) {
	ctx, cancel := context.WithTimeout(ctx, cancelWait)
	defer cancel()
	next, err := c.CancelJob(ctx, j.ID)
	for err == nil && next.FinishedAt == nil {
		select {
		case <-ctx.Done():
			return next, fmt.Errorf("%s %s did not stop within %s; GET /api/v1/jobs/%s tells how far it went", j.Kind, j.ID, cancelWait, j.ID)
		case <-time.After(pollEvery):
		}
		next, err = c.Job(ctx, j.ID)
	}
	if err != nil {
		return j, fmt.Errorf("cancel %s %s: %w", j.Kind, j.ID, err)
	}
	return next, nil
}
