package cli

import (
	"context"
	"io"

	"github.com/hookrelay/hookrelay/internal/adminclient"
)

// guardedPost is a POST to the admin API that changes deliveries: made
// first as a dry run whose answer is shown, then, unless --dry-run or
// nothing would change, after a confirmation, for real. R is the answer's
// type.
type guardedPost[R any] struct {
	// flagHint names the command in confirm's hint about --yes.
	flagHint            string
	dryRun, yes, asJSON bool
	// post makes the call, as a dry run when dry.
	post func(ctx context.Context, c *adminclient.Client, dry bool) (R, []byte, error)
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
	dry, data, err := g.post(ctx, c.Client, true)
	if err != nil {
		return usageIfRefused(c.explain(err)) // refused before anything was done
	}
	n, question := g.preview(out, dry)
	if g.dryRun || n == 0 {
		return printResult(env.Stdout, g.asJSON, data)
	}
	if err := confirm(env, g.yes, question, g.flagHint); err != nil {
		return err
	}
	res, data, err := g.post(ctx, c.Client, false)
	if err != nil {
		return c.explain(err)
	}
	g.done(out, res)
	return printResult(env.Stdout, g.asJSON, data)
}
