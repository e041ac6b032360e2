package cli

import (
	"context"
	"net/http"
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

// readView is the tail of every read-only listing verb: it GETs path with a
// read client, then prints the API's JSON as received when asJSON, or hands
// the decoded answer to show.
func readView[T any](ctx context.Context, env Env, api *apiFlags, path string, q url.Values, asJSON bool, show func(T) error) error {
	c, err := api.client(env, "read")
	if err != nil {
		return err
	}
	v, data, err := fetchJSON[T](ctx, c, http.MethodGet, path, q)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(env.Stdout, data)
	}
	return show(v)
}
