package cli

import (
	"context"
	"net/url"
)

// fetchJSON makes one call to the admin API within apiTimeout and decodes
// its answer into a T; data is the answer as received.
func fetchJSON[T any](ctx context.Context, c *apiClient, method, path string, q url.Values) (v T, data []byte, err error) {
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	data, err = c.callJSON(ctx, method, path, q, nil, &v)
	return v, data, err
}
