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

	"github.com/hookrelay/hookrelay/internal/adminapi"
)

// Environment variables the API commands read.
const (
	serverEnv = "HOOKRELAY_SERVER"
	tokenEnv  = "HOOKRELAY_TOKEN"
	// defaultServer is the admin listener of a relay on this machine.
	defaultServer = "http://127.0.0.1:8081"
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
	return &apiClient{base: strings.TrimRight(u.String(), "/"), token: token, need: need, http: &http.Client{}}, nil
}

// apiClient calls the admin API.
type apiClient struct {
	base  string
	token string
	need  string // the role the command needs: "read" or "admin"
	http  *http.Client
}

// call sends one request with a JSON body (nil for none) and returns the
// answer's body, or an error that says what to do next.
func (c *apiClient) call(ctx context.Context, method, path string, query url.Values, in any) ([]byte, http.Header, error) {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return nil, nil, fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(data)
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, nil, fmt.Errorf("build request: %w", err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, nil, fmt.Errorf("%s %s: no answer in time: %w", method, path, err)
		}
		return nil, nil, fmt.Errorf("cannot reach the admin API at %s: %w\n(is `hookrelay serve` running there? set --server or $%s to its admin_listen address)",
			c.base, errors.Unwrap(err), serverEnv)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("read answer of %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, c.refusal(resp.StatusCode, resp.Header, data)
	}
	return data, resp.Header, nil
}

// callJSON is call with the answer decoded into out.
func (c *apiClient) callJSON(ctx context.Context, method, path string, query url.Values, in, out any) ([]byte, error) {
	data, h, err := c.call(ctx, method, path, query, in)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, out); err != nil || !isRelay(h) {
		return nil, notRelay(c.base, h, data)
	}
	return data, nil
}

// refusal turns a non-2xx answer into an error that says what to do next.
func (c *apiClient) refusal(status int, h http.Header, body []byte) error {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" || !isRelay(h) {
		if status == http.StatusNotFound {
			return fmt.Errorf("%s answered 404 without an API error: is it hookrelay's admin listener (admin_listen), not the public one?", c.base)
		}
		if status != http.StatusServiceUnavailable {
			return fmt.Errorf("%s answered %d %s: %w", c.base, status, http.StatusText(status), notRelay(c.base, h, body))
		}
		e.Error = strings.TrimSpace(string(body))
	}
	switch {
	case status == http.StatusUnauthorized && c.token == "":
		return fmt.Errorf("no token given: set --token or $%s to a token from the config's tokens list", tokenEnv)
	case status == http.StatusUnauthorized:
		return fmt.Errorf("the server refused the token: set --token or $%s to %s token from the config's tokens list", tokenEnv, article(c.need))
	case status == http.StatusForbidden:
		return fmt.Errorf("the token's role does not allow this: use %s token (--token or $%s)", article(c.need), tokenEnv)
	case status == http.StatusServiceUnavailable:
		return fmt.Errorf("the relay's storage is unavailable (%s): try again shortly", e.Error)
	case status >= 500:
		return fmt.Errorf("the server failed (%d %s): its log has the detail", status, e.Error)
	}
	return &apiError{status: status, msg: e.Error}
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

// errNotRelay reports a server that does not answer as hookrelay's admin
// API does.
var errNotRelay = errors.New("not a hookrelay admin listener")

// isJSON reports whether an answer's Content-Type is JSON.
func isJSON(h http.Header) bool {
	ct, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	return strings.TrimSpace(strings.ToLower(ct)) == "application/json"
}

// isRelay reports whether an answer comes from hookrelay's admin API: JSON
// with the API's own header.
func isRelay(h http.Header) bool { return isJSON(h) && h.Get(adminapi.APIHeader) != "" }

// notRelay says that base answered something other than the admin API's
// JSON (an HTML page, another service's JSON), and what to change.
func notRelay(base string, h http.Header, body []byte) error {
	what := "an answer that is not the admin API's JSON"
	if ct := h.Get("Content-Type"); isJSON(h) {
		what = "JSON without the " + adminapi.APIHeader + " header of hookrelay's admin API"
	} else if ct != "" {
		what = "a " + ct + " answer"
	} else if bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")) {
		what = "an HTML page"
	}
	return fmt.Errorf("%w: %s sent %s: set --server or $%s to the relay's admin_listen address (e.g. %s)", errNotRelay, base, what, serverEnv, defaultServer)
}
