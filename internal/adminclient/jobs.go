package adminclient

import (
	"context"
	"net/http"
	"net/url"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// StartReplayJob starts a replay as a job of the relay and returns it
// running.
func (c *Client) StartReplayJob(ctx context.Context, req adminwire.JobReplayRequest) (adminwire.Job, error) {
	j, _, err := call[adminwire.Job](ctx, c, http.MethodPost, "/api/v1/jobs/replay", nil, req)
	return j, err
}

// StartBackfillJob starts a backfill as a job of the relay and returns it
// running.
func (c *Client) StartBackfillJob(ctx context.Context, req adminwire.BackfillRequest) (adminwire.Job, error) {
	j, _, err := call[adminwire.Job](ctx, c, http.MethodPost, "/api/v1/jobs/backfill", nil, req)
	return j, err
}

// Jobs lists the jobs of every relay process on the database, running or
// run lately, newest first.
func (c *Client) Jobs(ctx context.Context) (adminwire.JobList, []byte, error) {
	return call[adminwire.JobList](ctx, c, http.MethodGet, "/api/v1/jobs", nil, nil)
}

// Job reads one job's progress.
func (c *Client) Job(ctx context.Context, id string) (adminwire.Job, error) {
	j, _, err := call[adminwire.Job](ctx, c, http.MethodGet, "/api/v1/jobs/"+url.PathEscape(id), nil, nil)
	return j, err
}

// CancelJob asks a job to stop between two batches and returns it; it
// ends cancelled, keeping what it did.
func (c *Client) CancelJob(ctx context.Context, id string) (adminwire.Job, error) {
	j, _, err := call[adminwire.Job](ctx, c, http.MethodPost, "/api/v1/jobs/"+url.PathEscape(id)+"/cancel", nil, nil)
	return j, err
}
