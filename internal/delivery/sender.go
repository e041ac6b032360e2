package delivery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/tracing"
)

// Limits on what is kept of a destination's answer.
const (
	// SnippetLimit is the most of a response body kept with an attempt.
	SnippetLimit = 1 << 10
	// drainLimit is the most of the rest of a response read, so that the
	// connection can be reused; past it the connection is closed instead.
	drainLimit = 64 << 10
	// errorLimit bounds the error text kept with an attempt.
	errorLimit = 512
)

// Result is the outcome of one push attempt.
type Result struct {
	// Outcome is StatusDone, StatusSkipped or StatusFailed.
	Outcome store.DeliveryStatus
	// StatusCode is the response code, 0 when no response was received.
	StatusCode int
	// Error describes a failure; empty on success.
	Error string
	// Snippet is the start of the response body, at most SnippetLimit
	// bytes, as received.
	Snippet []byte
	// RetryAfter is the wait the destination asked for, 0 when none.
	RetryAfter time.Duration
	// AttemptedAt is when the attempt started; Duration how long it took.
	AttemptedAt time.Time
	Duration    time.Duration
	// Sent are the headers of the request of a failed attempt, as it
	// keeps them (see sentHeaders); nil when no request was made or the
	// attempt did not fail. Answered are the response's (see
	// answeredHeaders); nil when none was received or it did not fail.
	Sent, Answered map[string][]string
}

// Attempt returns r as the attempt record of one delivery. A failed
// attempt keeps the headers sent and answered; one that succeeded keeps
// none: recording them took the store's time per outcome up by a third
// on SQLite and by two thirds on PostgreSQL (storetest.BenchClaimSizes),
// on every delivery, to show what is rarely looked at once it worked.
func (r Result) Attempt(deliveryID int64) store.Attempt {
	a := store.Attempt{
		DeliveryID:      deliveryID,
		AttemptedAt:     r.AttemptedAt,
		Duration:        r.Duration,
		StatusCode:      r.StatusCode,
		Error:           r.Error,
		ResponseSnippet: string(r.Snippet),
	}
	if r.Outcome == store.StatusFailed {
		a.RequestHeaders, a.ResponseHeaders = r.Sent, r.Answered
	}
	return a
}

// Sender pushes deliveries to one destination. It has its own connection
// pool, so a destination that hangs holds no connection another needs. It
// is safe for concurrent use.
//
// A push is one request and its answer, never a redirect followed, so it
// goes to the transport itself: an http.Client would copy every request's
// headers for the redirects it may follow and start a timer of its own.
type Sender struct {
	target    Target
	signer    *signature.StandardSigner // nil when the secret does not decode
	badKey    error                     // why signer is nil
	timeout   time.Duration
	transport *http.Transport
	now       func() time.Time
}

// NewSender returns a Sender to t whose attempts each last at most timeout,
// keeping up to conns idle connections. now is the signing clock; nil means
// time.Now.
func NewSender(t Target, timeout time.Duration, conns int, now func() time.Time) *Sender {
	if now == nil {
		now = time.Now
	}
	// Every sender of a destination keeps its connection between
	// attempts: as many idle connections as it has senders.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = max(conns, 2)
	tr.MaxIdleConnsPerHost = max(conns, 2)
	signer, err := signature.NewStandardSigner(t.Secret)
	if err != nil {
		err = fmt.Errorf("sign delivery: %w", err)
	}
	return &Sender{target: t, signer: signer, badKey: err, timeout: timeout, transport: tr, now: now}
}

// Send makes one attempt of delivery d of ev and classifies the answer: a
// 2xx is done, or skipped when it carries "hookrelay-outcome: skipped";
// anything else, a timeout or a connection error is failed. Send never
// returns an error of its own; a request it cannot even build is a failed
// attempt.
func (s *Sender) Send(ctx context.Context, ev store.Event, d store.Delivery) Result {
	start := s.now()
	res := s.send(ctx, ev, d, start)
	res.AttemptedAt = start
	res.Duration = max(0, s.now().Sub(start))
	return res
}

func (s *Sender) send(ctx context.Context, ev store.Event, d store.Delivery, start time.Time) (res Result) {
	ctx, traced := traceAttempt(ctx, ev, d)
	defer func() { traced(&res) }()
	// The timeout bounds the whole exchange, the answer's body included.
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	res = Result{Outcome: store.StatusFailed}
	req, err := s.request(ctx, ev, d, start)
	if err != nil {
		res.Error = ShortError(err.Error())
		return res
	}
	tracing.Inject(ctx, req.Header)
	resp, err := s.transport.RoundTrip(req)
	if err != nil {
		res.Error = transportError(err, s.timeout)
		res.Sent = sentHeaders(req.Header)
		return res
	}
	// The status decides the outcome; a body cut short by the timeout
	// only shortens the snippet.
	res.StatusCode = resp.StatusCode
	res.Snippet = readSnippet(resp.Body)
	_, _ = io.CopyN(io.Discard, resp.Body, drainLimit)
	_ = resp.Body.Close()

	v := ReadAnswer(resp.StatusCode, resp.Header, s.now())
	res.Outcome, res.Error, res.RetryAfter = v.Outcome, v.Reason, v.RetryAfter
	if res.Outcome == store.StatusFailed { // only a failure keeps them (see Attempt)
		res.Sent, res.Answered = sentHeaders(req.Header), answeredHeaders(resp.Header)
	}
	return res
}

// request returns the signed POST of delivery d of ev at now, signed with
// the secret decoded once.
func (s *Sender) request(ctx context.Context, ev store.Event, d store.Delivery, now time.Time) (*http.Request, error) {
	if s.signer == nil {
		return nil, s.badKey
	}
	sig, err := s.signer.Sign(ev.ID, now, ev.Body)
	if err != nil {
		return nil, fmt.Errorf("sign delivery: %w", err)
	}
	return s.target.request(ctx, ev, s.target.signedHeaders(ev, d, now, sig))
}

// snippetBufs are the buffers response snippets are read into.
var snippetBufs = sync.Pool{New: func() any { return new([SnippetLimit]byte) }}

// readSnippet returns the first SnippetLimit bytes of a response body, in
// a slice of their length: nothing is allocated for an empty body. A read
// error only shortens the snippet.
func readSnippet(body io.Reader) []byte {
	buf := snippetBufs.Get().(*[SnippetLimit]byte)
	defer snippetBufs.Put(buf)
	n, _ := io.ReadFull(body, buf[:])
	if n == 0 {
		return nil
	}
	return bytes.Clone(buf[:n])
}

// absoluteHTTP reports whether s is an absolute http or https URL.
func absoluteHTTP(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// CloseIdleConnections closes the sender's idle connections.
func (s *Sender) CloseIdleConnections() { s.transport.CloseIdleConnections() }

// transportError describes an error of an HTTP client with the given
// timeout. It leaves out the request URL, which may carry a token, and names
// timeouts plainly.
func transportError(err error, timeout time.Duration) string {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("timeout after %s", timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return ShortError(err.Error())
}

// ShortError bounds an error text and keeps it storable as text: valid
// UTF-8, no NUL, at most 512 bytes.
func ShortError(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "?")
	if len(s) > errorLimit {
		s = strings.ToValidUTF8(s[:errorLimit], "") + "…"
	}
	return s
}
