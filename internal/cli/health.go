package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// defaultHealthURL is the readiness endpoint of a relay whose admin
// listener is on its default address.
const defaultHealthURL = "http://127.0.0.1:8081/readyz"

// healthClient asks the relay directly, never through a proxy from the
// environment.
var healthClient = &http.Client{Transport: &http.Transport{Proxy: nil}}

// errNotReady is what health returns when the relay did not answer ready.
var errNotReady = errors.New("not ready")

// runHealth asks a relay's admin listener whether it is ready, for health
// checks where there is no shell or curl (the container image): exit 0 when
// it answers 200 with a relay's {"status":"ready"}, 1 with the reason
// otherwise. The body tells the relay from another server on the port,
// which a status alone would count as ready.
func runHealth(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet(env, "health")
	url := fs.String("url", defaultHealthURL, "the relay's readiness endpoint: its admin listener's /readyz")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		return fmt.Errorf("%w: --url %q: %v", errUsage, *url, err)
	}
	resp, err := healthClient.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", errNotReady, *url, unwrapURLError(err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: %s answered %s %s", errNotReady, *url, resp.Status, strings.TrimSpace(string(body)))
	}
	var answer struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(body, &answer) != nil || answer.Status != "ready" {
		return fmt.Errorf("%w: %s answered %s but not as a ready relay (%q): is another server on that port?", errNotReady, *url, resp.Status, strings.TrimSpace(string(body)))
	}
	fmt.Fprintf(env.Stdout, "ready: %s answered %s\n", *url, resp.Status)
	return nil
}

// unwrapURLError drops the "Get URL:" prefix a *url.Error adds, since the
// message names the URL already.
func unwrapURLError(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
