package cli

import (
	"context"
	"io"
	"net/http"
)

// guardedPost is a POST to the admin API that changes deliveries: made
// first as a dry run whose answer is shown, then, unless --dry-run or
// nothing would change, after a confirmation, for real. R is the answer's
// type.
type guardedPost[R any] struct {
	path string
	// flagHint names the command in confirm's hint about --yes.
	flagHint            string
	dryRun, yes, asJSON bool
	// request returns the body to send, with its DryRun field set to dry.
	request func(dry bool) any
	// preview prints the dry run's answer and returns how many deliveries
	// would change and the question to confirm it with.
	preview func(w io.Writer, dry R) (n int64, question string)
	// done prints the real call's answer.
	done func(w io.Writer, res R)
}

// run makes the calls with c. The lines go to stdout, or to stderr when
// --json puts the API's answer on stdout.
func (g guardedPost[R]) run(ctx context.Context, env Env, c *apiClient) error {
	out := env.Stdout
	if g.asJSON {
		out = env.Stderr
	}
	var dry R
	data, err := c.callJSON(ctx, http.MethodPost, g.path, nil, g.request(true), &dry)
	if err != nil {
		return usageIfRefused(err) // refused before anything was done
	}
	n, question := g.preview(out, dry)
	if g.dryRun || n == 0 {
		return printResult(env.Stdout, g.asJSON, data)
	}
	if err := confirm(env, g.yes, question, g.flagHint); err != nil {
		return err
	}
	var res R
	if data, err = c.callJSON(ctx, http.MethodPost, g.path, nil, g.request(false), &res); err != nil {
		return err
	}
	g.done(out, res)
	return printResult(env.Stdout, g.asJSON, data)
}
