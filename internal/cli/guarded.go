package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// guardedPost is a POST to the admin API that changes deliveries: made
// first as a dry run whose answer is shown, then, unless --dry-run or
// nothing would change, after a confirmation, for real, as a job of the
// relay whose progress is shown on stderr. R is the answer's type.
type guardedPost[R any] struct {
	// flagHint names the command in confirm's hint about --yes.
	flagHint            string
	dryRun, yes, asJSON bool
	// count makes the call as a dry run.
	count func(ctx context.Context, c *adminclient.Client) (R, []byte, error)
	// preview prints the dry run's answer and returns how many deliveries
	// would change and the question to confirm it with.
	preview func(w io.Writer, dry R) (n int64, question string)
	// start starts the real call as a job.
	start func(ctx context.Context, c *adminclient.Client) (adminwire.Job, error)
	// unit names what the job counts, for its progress.
	unit string
	// report prints how the job ended, returns what it did as the
	// synchronous route would have answered it, and an error unless it
	// ran to its end.
	report func(w io.Writer, j adminwire.Job) (R, error)
}

// run makes the calls with c. The lines go to stdout, or to stderr when
// --json puts the answer on stdout; the job's progress goes to stderr.
// An interrupt while the job runs cancels it, which stops it between two
// batches, and report says what it did.
func (g guardedPost[R]) run(ctx context.Context, env Env, c *apiClient) error {
	out := env.Stdout
	if g.asJSON {
		out = env.Stderr
	}
	dry, data, err := g.count(ctx, c.Client)
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
	j, err := g.start(ctx, c.Client)
	if err != nil {
		return usageIfRefused(c.explain(err))
	}
	ended, _, err := followJob(ctx, c.Client, j, newProgress(env.Stderr, g.unit))
	if err != nil {
		return c.explain(err)
	}
	res, err := g.report(out, ended)
	if !g.asJSON {
		return err
	}
	if data, err2 := json.Marshal(res); err2 != nil {
		err = errors.Join(err, fmt.Errorf("encode answer: %w", err2))
	} else {
		err = errors.Join(err, printJSON(env.Stdout, data))
	}
	return err
}
