package adminclient

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// The routes of the admin API. Those an operator may print as they came
// also return the answer's JSON as received.

// Events lists events: GET /api/v1/events with the listing's filters.
func (c *Client) Events(ctx context.Context, q url.Values) (adminwire.EventList, []byte, error) {
	return call[adminwire.EventList](ctx, c, http.MethodGet, "/api/v1/events", q, nil)
}

// Event reads one event with its deliveries and their attempts.
func (c *Client) Event(ctx context.Context, id string) (adminwire.EventDetail, []byte, error) {
	return call[adminwire.EventDetail](ctx, c, http.MethodGet, "/api/v1/events/"+url.PathEscape(id), nil, nil)
}

// EventRaw returns the bytes stored for one event, exactly.
func (c *Client) EventRaw(ctx context.Context, id string) ([]byte, error) {
	data, _, err := c.do(ctx, http.MethodGet, "/api/v1/events/"+url.PathEscape(id)+"/raw", nil, nil)
	return data, err
}

// Verify re-checks one event's stored signature now.
func (c *Client) Verify(ctx context.Context, id string) (adminwire.Verification, []byte, error) {
	return call[adminwire.Verification](ctx, c, http.MethodPost, "/api/v1/events/"+url.PathEscape(id)+"/verify", nil, nil)
}

// Replay re-arms the deliveries req selects, or counts them on a dry run.
func (c *Client) Replay(ctx context.Context, req adminwire.ReplayRequest) (adminwire.ReplayResult, []byte, error) {
	return call[adminwire.ReplayResult](ctx, c, http.MethodPost, "/api/v1/replay", nil, req)
}

// Backfill creates the deliveries a destination lacks over a window, or
// counts them on a dry run.
func (c *Client) Backfill(ctx context.Context, req adminwire.BackfillRequest) (adminwire.BackfillResult, []byte, error) {
	return call[adminwire.BackfillResult](ctx, c, http.MethodPost, "/api/v1/backfill", nil, req)
}

// Purge erases the payload of the events a selector selects, keeping a
// tombstone, or counts them on a dry run.
func (c *Client) Purge(ctx context.Context, req adminwire.PurgeRequest) (adminwire.PurgeResult, []byte, error) {
	return call[adminwire.PurgeResult](ctx, c, http.MethodPost, "/api/v1/purge", nil, req)
}

// Stats counts deliveries per destination and ingest outcomes per source.
func (c *Client) Stats(ctx context.Context) (adminwire.Stats, []byte, error) {
	return call[adminwire.Stats](ctx, c, http.MethodGet, "/api/v1/stats", nil, nil)
}

// Secrets lists the sources' secrets, masked, and which verified lately.
func (c *Client) Secrets(ctx context.Context) (adminwire.Secrets, []byte, error) {
	return call[adminwire.Secrets](ctx, c, http.MethodGet, "/api/v1/secrets", nil, nil)
}

// Reload makes the relay read its config again.
func (c *Client) Reload(ctx context.Context) (adminwire.ReloadSummary, []byte, error) {
	return call[adminwire.ReloadSummary](ctx, c, http.MethodPost, "/api/v1/reload", nil, nil)
}

// Rejections lists the rejected requests, newest first.
func (c *Client) Rejections(ctx context.Context, q url.Values) (adminwire.Rejections, []byte, error) {
	return call[adminwire.Rejections](ctx, c, http.MethodGet, "/api/v1/rejections", q, nil)
}

// Audit lists the audit log, newest first.
func (c *Client) Audit(ctx context.Context, q url.Values) (adminwire.AuditLog, []byte, error) {
	return call[adminwire.AuditLog](ctx, c, http.MethodGet, "/api/v1/audit", q, nil)
}

// Destinations lists the destinations with their state.
func (c *Client) Destinations(ctx context.Context) (adminwire.Destinations, []byte, error) {
	return call[adminwire.Destinations](ctx, c, http.MethodGet, "/api/v1/destinations", nil, nil)
}

// Pause holds a destination's deliveries until Resume.
func (c *Client) Pause(ctx context.Context, destination string) (adminwire.PauseResult, []byte, error) {
	return call[adminwire.PauseResult](ctx, c, http.MethodPost, "/api/v1/destinations/"+url.PathEscape(destination)+"/pause", nil, nil)
}

// Resume lets a paused destination's deliveries go out again.
func (c *Client) Resume(ctx context.Context, destination string) (adminwire.PauseResult, []byte, error) {
	return call[adminwire.PauseResult](ctx, c, http.MethodPost, "/api/v1/destinations/"+url.PathEscape(destination)+"/resume", nil, nil)
}

// Skip marks one delivery skipped: it is not tried again.
func (c *Client) Skip(ctx context.Context, deliveryID int64) (adminwire.Delivery, []byte, error) {
	return call[adminwire.Delivery](ctx, c, http.MethodPost, fmt.Sprintf("/api/v1/deliveries/%d/skip", deliveryID), nil, nil)
}

// ClaimRequest is what a pull consumer asks one claim for; zero fields take
// the API's defaults.
type ClaimRequest struct {
	Max         int
	Wait, Lease time.Duration
}

// Claim leases due deliveries of a pull destination, waiting up to
// req.Wait for one.
func (c *Client) Claim(ctx context.Context, destination string, req ClaimRequest) (adminwire.Claimed, error) {
	q := url.Values{}
	if req.Max > 0 {
		q.Set("max", strconv.Itoa(req.Max))
	}
	if req.Wait > 0 {
		q.Set("wait", req.Wait.String())
	}
	if req.Lease > 0 {
		q.Set("lease", req.Lease.String())
	}
	v, _, err := call[adminwire.Claimed](ctx, c, http.MethodPost, "/api/v1/destinations/"+url.PathEscape(destination)+"/claim", q, nil)
	return v, err
}

// Ack records the outcome of a claimed delivery, or hands it back with
// adminwire.OutcomeReleased.
func (c *Client) Ack(ctx context.Context, deliveryID int64, req adminwire.AckRequest) (adminwire.AckResult, error) {
	v, _, err := call[adminwire.AckResult](ctx, c, http.MethodPost, fmt.Sprintf("/api/v1/deliveries/%d/ack", deliveryID), nil, req)
	return v, err
}
