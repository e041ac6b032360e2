package cli

import (
	"context"

	"github.com/hookrelay/hookrelay/internal/adminclient"
)

// readView is the tail of every read-only listing verb: it makes the call
// get with a read client, then prints the API's JSON as received when
// asJSON, or hands the decoded answer to show.
func readView[T any](ctx context.Context, env Env, api *apiFlags, get func(context.Context, *adminclient.Client) (T, []byte, error), asJSON bool, show func(T) error) error {
	c, err := api.client(env, "read")
	if err != nil {
		return err
	}
	v, data, err := ask(ctx, c, func(ctx context.Context) (T, []byte, error) { return get(ctx, c.Client) })
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(env.Stdout, data)
	}
	return show(v)
}
