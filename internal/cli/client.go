package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/adminclient"
)

// Environment variables the API commands read, and the relay they call
// when given none.
const (
	serverEnv     = adminclient.ServerEnv
	tokenEnv      = adminclient.TokenEnv
	defaultServer = adminclient.DefaultServer
)

// Timeouts of one API call.
const (
	apiTimeout = time.Minute
	// longTimeout bounds a replay or a backfill, which work through a whole
	// window in one call.
	longTimeout = 30 * time.Minute
)

// apiFlags are the flags every command that talks to the admin API takes.
type apiFlags struct {
	server, token string
}

// addAPIFlags adds --server and --token. Their environment defaults are
// applied after parsing, so that -h never prints a token.
func addAPIFlags(fs *flag.FlagSet) *apiFlags {
	f := &apiFlags{}
	fs.StringVar(&f.server, "server", "", "admin API base URL (default $"+serverEnv+", else "+defaultServer+")")
	fs.StringVar(&f.token, "token", "", "bearer token from the config's tokens (default $"+tokenEnv+")")
	return f
}

// client returns the API client the flags describe. need names the role the
// command needs, for the message of a 403.
func (f *apiFlags) client(env Env, need string) (*apiClient, error) {
	server := f.server
	if server == "" {
		server = env.Getenv(serverEnv)
	}
	if server == "" {
		server = defaultServer
	}
	if !strings.Contains(server, "://") {
		server = "http://" + server
	}
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: --server %q is not an http(s) URL such as %s", errUsage, server, defaultServer)
	}
	token := f.token
	if token == "" {
		token = env.Getenv(tokenEnv)
	}
	return &apiClient{Client: adminclient.New(u.String(), token), need: need}, nil
}

// apiClient is the admin API's client with the role a command needs, for
// the advice its errors give.
type apiClient struct {
	*adminclient.Client
	need string // the role the command needs: "read", "admin" or "consumer"
}

// ask makes one call within apiTimeout and turns its failure into an error
// that says what to do next.
func ask[T any](ctx context.Context, c *apiClient, call func(context.Context) (T, []byte, error)) (T, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, apiTimeout)
	defer cancel()
	v, data, err := call(ctx)
	return v, data, c.explain(err)
}

// explain turns a failed call into an error that says what to do next; nil
// stays nil.
func (c *apiClient) explain(err error) error {
	var ue *adminclient.UnreachableError
	var se *adminclient.StatusError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue) && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s %s: no answer in time: %w", ue.Method, ue.Path, ue.Err)
	case errors.As(err, &ue):
		return fmt.Errorf("cannot reach the admin API at %s: %w\n(is `hookrelay serve` running there? set --server or $%s to its admin_listen address)",
			c.Base(), ue.Err, serverEnv)
	case errors.As(err, &se):
		return c.refusal(se)
	}
	return err
}

// generatedTokenHint ends a 401's advice: where the token is when the
// config has none.
const generatedTokenHint = " (a config without an admin token: export " + tokenEnv + "=$(cat " + localTokenFile + "), the file the relay keeps beside its SQLite database, or its config on PostgreSQL)"

// refusal turns a non-2xx answer into an error that says what to do next.
func (c *apiClient) refusal(se *adminclient.StatusError) error {
	status := se.Status
	if !se.FromAPI {
		if status == http.StatusNotFound {
			return fmt.Errorf("%s answered 404 without an API error: is it hookrelay's admin listener (admin_listen), not the public one?", c.Base())
		}
		if status != http.StatusServiceUnavailable {
			return fmt.Errorf("%s answered %d %s: %w", c.Base(), status, http.StatusText(status), adminclient.NotRelay(c.Base(), se.Header, se.Body))
		}
	}
	switch {
	case status == http.StatusUnauthorized && !c.HasToken():
		return fmt.Errorf("no token given: set --token or $%s to a token from the config's tokens list%s", tokenEnv, generatedTokenHint)
	case status == http.StatusUnauthorized:
		return fmt.Errorf("the server refused the token: set --token or $%s to %s token from the config's tokens list%s", tokenEnv, article(c.need), generatedTokenHint)
	case status == http.StatusForbidden:
		return fmt.Errorf("the token's role does not allow this: use %s token (--token or $%s)", article(c.need), tokenEnv)
	case status == http.StatusServiceUnavailable:
		return fmt.Errorf("the relay's storage is unavailable (%s): try again shortly", se.Message)
	case status >= 500:
		return fmt.Errorf("the server failed (%d %s): its log has the detail", status, se.Message)
	}
	return &apiError{status: status, msg: se.Message}
}

// apiError is an answer the caller may want to tell apart: 400, 404, 409.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func article(role string) string {
	if role == "admin" {
		return "an admin"
	}
	return "a read or admin"
}

// printJSON writes an API answer indented, with a final newline.
func printJSON(w io.Writer, data []byte) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(data), "", "  "); err != nil {
		return fmt.Errorf("format answer: %w", err)
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}
