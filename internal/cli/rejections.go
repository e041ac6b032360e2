package cli

import (
	"context"
	"fmt"
	"net/url"
	"text/tabwriter"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminclient"
	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// runRejections prints the rejection record: requests that failed
// verification, newest first. Never a body.
func runRejections(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "rejections")
	api := addAPIFlags(fs)
	source := fs.String("source", "", "only rejections of this source")
	since := fs.String("since", "", "only rejections at or after this time: "+timeHelp)
	limit := fs.Int("limit", 50, "rejections to print, at most 1000")
	asJSON := fs.Bool("json", false, "print the API's JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	q, err := listQuery(*limit, map[string]string{"source": *source}, *since)
	if err != nil {
		return err
	}
	return readView(ctx, env, api, func(ctx context.Context, c *adminclient.Client) (adminwire.Rejections, []byte, error) {
		return c.Rejections(ctx, q)
	}, *asJSON, func(list adminwire.Rejections) error {
		if len(list.Rejections) == 0 {
			fmt.Fprintln(env.Stderr, "no rejections match")
			return nil
		}
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "AT\tSOURCE\tREASON\tSKEW\tREMOTE ADDRESS\tBODY")
		for _, r := range list.Rejections {
			skew := "-"
			if r.SkewSeconds != nil {
				skew = time.Duration(*r.SkewSeconds * float64(time.Second)).Round(time.Second).String()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d bytes\n", stamp(r.At), r.Source, r.Reason, skew, dash(r.RemoteAddr), r.BodySize)
		}
		return tw.Flush()
	})
}

// listQuery builds the query of a listing: limit, the non-empty values,
// and since parsed as a time flag.
func listQuery(limit int, values map[string]string, since string) (url.Values, error) {
	if limit < 1 || limit > 1000 {
		return nil, fmt.Errorf("%w: --limit %d: want 1 to 1000", errUsage, limit)
	}
	q := url.Values{"limit": {fmt.Sprint(limit)}}
	for k, v := range values {
		if v != "" {
			q.Set(k, v)
		}
	}
	t, err := parseWhen("since", since, time.Now())
	if err != nil {
		return nil, err
	}
	if t != "" {
		q.Set("since", t)
	}
	return q, nil
}
