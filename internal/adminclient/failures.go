package adminclient

import (
	"context"
	"net/http"
	"net/url"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// Failures lists the failed and dead deliveries grouped by destination,
// status and kind of failure: GET /api/v1/failures, with destination in q
// to keep one destination's.
func (c *Client) Failures(ctx context.Context, q url.Values) (adminwire.Failures, []byte, error) {
	return call[adminwire.Failures](ctx, c, http.MethodGet, "/api/v1/failures", q, nil)
}
