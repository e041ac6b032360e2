package adminclient

import (
	"context"
	"net/http"
	"net/url"

	"github.com/hookrelay/hookrelay/internal/adminapi"
)

// StartReplayJob starts a replay as a job of the relay and returns it
// running.
func (c *Client) StartReplayJob(ctx context.Context, req adminapi.JobReplayRequest) (adminapi.Job, error) {
	j, _, err := call[adminapi.Job](ctx, c, http.MethodPost, "/api/v1/jobs/replay", nil, req)
	return j, err
}

// StartBackfillJob starts a backfill as a job of the relay and returns it
// running.
func (c *Client) StartBackfillJob(ctx context.Context, req adminapi.BackfillRequest) (adminapi.Job, error) {
	j, _, err := call[adminapi.Job](ctx, c, http.MethodPost, "/api/v1/jobs/backfill", nil, req)
	return j, err
}

// Jobs lists the jobs the relay process runs or ran lately, newest first.
func (c *Client) Jobs(ctx context.Context) (adminapi.JobList, []byte, error) {
	return call[adminapi.JobList](ctx, c, http.MethodGet, "/api/v1/jobs", nil, nil)
}

// Job reads one job's progress.
func (c *Client) Job(ctx context.Context, id string) (adminapi.Job, error) {
	j, _, err := call[adminapi.Job](ctx, c, http.MethodGet, "/api/v1/jobs/"+url.PathEscape(id), nil, nil)
	return j, err
}

// CancelJob asks a job to stop between two batches and returns it; it
// ends cancelled, keeping what it did.
func (c *Client) CancelJob(ctx context.Context, id string) (adminapi.Job, error) {
	j, _, err := call[adminapi.Job](ctx, c, http.MethodPost, "/api/v1/jobs/"+url.PathEscape(id)+"/cancel", nil, nil)
	return j, err
}
