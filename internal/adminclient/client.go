// Package adminclient is the typed client of hookrelay's admin API: one
// method per route, bodies and answers in the shapes of adminwire, so that
// it links no server code. Every CLI verb that talks to a relay uses it,
// and so do the end-to-end tests.
package adminclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/hookrelay/hookrelay/internal/adminwire"
)

// Where a client finds a relay unless told otherwise.
const (
	// ServerEnv and TokenEnv name the environment variables the CLI reads
	// the admin API's URL and bearer token from.
	ServerEnv = "HOOKRELAY_SERVER"
	TokenEnv  = "HOOKRELAY_TOKEN"
	// DefaultServer is the admin listener of a relay on this machine.
	DefaultServer = "http://127.0.0.1:8081"
)

// Client calls one relay's admin API with one bearer token. It is safe for
// concurrent use.
type Client struct {
	base  string
	token string
	http  *http.Client
	// maxAnswer bounds the bytes of an answer read; 0 reads it whole.
	maxAnswer int64
}

// New returns a client of the admin API at base (scheme and host, such as
// DefaultServer) that sends token, when not empty, as its bearer token.
// Calls have no timeout but their context's.
func New(base, token string) *Client {
	return &Client{base: strings.TrimRight(base, "/"), token: token, http: &http.Client{}}
}

// WithAnswerLimit returns a copy of c that reads at most n bytes of an
// answer; a longer one is cut and fails to decode.
func (c *Client) WithAnswerLimit(n int64) *Client {
	cc := *c
	cc.maxAnswer = n
	return &cc
}

// Base returns the URL the client calls.
func (c *Client) Base() string { return c.base }

// HasToken reports whether the client sends a bearer token.
func (c *Client) HasToken() bool { return c.token != "" }

// ErrNotRelay reports a server that does not answer as hookrelay's admin
// API does.
var ErrNotRelay = errors.New("not a hookrelay admin listener")

// UnreachableError reports a call that got no answer: the relay could not
// be reached, or did not answer in time. Err leaves out the URL.
type UnreachableError struct {
	Method, Path string
	Err          error
}

func (e *UnreachableError) Error() string { return e.Err.Error() }
func (e *UnreachableError) Unwrap() error { return e.Err }

// StatusError is an answer other than 2xx.
type StatusError struct {
	Status int
	// Message is the API's error message; when the answer was not the
	// API's JSON (FromAPI false), the answer's text.
	Message string
	FromAPI bool
	// Header and Body are the answer's, to describe one that did not come
	// from the API.
	Header http.Header
	Body   []byte
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, http.StatusText(e.Status), e.Message)
}

// do sends one request with a JSON body (nil for none) and returns the body
// and header of a 2xx answer. It fails with *UnreachableError or
// *StatusError.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in any) ([]byte, http.Header, error) {
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
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may carry a token
		}
		return nil, nil, &UnreachableError{Method: method, Path: path, Err: err}
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if c.maxAnswer > 0 {
		r = io.LimitReader(r, c.maxAnswer)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("read answer of %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		se := &StatusError{Status: resp.StatusCode, Header: resp.Header, Body: data}
		var e adminwire.Error
		if json.Unmarshal(data, &e) == nil && e.Error != "" && IsRelay(resp.Header) {
			se.Message, se.FromAPI = e.Error, true
		} else {
			se.Message = strings.TrimSpace(string(data))
		}
		return nil, nil, se
	}
	return data, resp.Header, nil
}

// call is do with the answer decoded into a T; data is the answer as
// received. An answer that is not the API's JSON is ErrNotRelay.
func call[T any](ctx context.Context, c *Client, method, path string, query url.Values, in any) (v T, data []byte, err error) {
	data, h, err := c.do(ctx, method, path, query, in)
	if err != nil {
		return v, nil, err
	}
	if err := json.Unmarshal(data, &v); err != nil || !IsRelay(h) {
		return v, nil, NotRelay(c.base, h, data)
	}
	return v, data, nil
}

// isJSON reports whether an answer's Content-Type is JSON.
func isJSON(h http.Header) bool {
	ct, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	return strings.TrimSpace(strings.ToLower(ct)) == "application/json"
}

// IsRelay reports whether an answer comes from hookrelay's admin API: JSON
// with the API's own header.
func IsRelay(h http.Header) bool { return isJSON(h) && h.Get(adminwire.APIHeader) != "" }

// NotRelay says that base answered something other than the admin API's
// JSON (an HTML page, another service's JSON), and what to change. It wraps
// ErrNotRelay.
func NotRelay(base string, h http.Header, body []byte) error {
	what := "an answer that is not the admin API's JSON"
	if ct := h.Get("Content-Type"); isJSON(h) {
		what = "JSON without the " + adminwire.APIHeader + " header of hookrelay's admin API"
	} else if ct != "" {
		what = "a " + ct + " answer"
	} else if bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")) {
		what = "an HTML page"
	}
	return fmt.Errorf("%w: %s sent %s: set --server or $%s to the relay's admin_listen address (e.g. %s)", ErrNotRelay, base, what, ServerEnv, DefaultServer)
}
