package providersim

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// EventType is the type of every simulated event.
const EventType = "invoice.paid"

// runTag returns a short random tag that sets one run's ids apart.
func runTag() string {
	b := make([]byte, 4)
	_, _ = crand.Read(b)
	return hex.EncodeToString(b)
}

// newClient returns a client that keeps a connection per sender and gives
// up on one attempt after timeout.
func newClient(senders int, timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: timeout}).DialContext,
			MaxIdleConns:        senders,
			MaxIdleConnsPerHost: senders,
			IdleConnTimeout:     30 * time.Second,
		},
	}
}

// newEvent registers the event with sequence number seq and builds its
// body, which stays the same through every retry.
func (s *Simulator) newEvent(seq int) *Event {
	id := s.opts.Prefix + strconv.Itoa(seq)
	body := fmt.Appendf(nil,
		`{"id":%q,"object":"event","type":%q,"created":%d,"data":{"object":{"id":"in_%d","object":"invoice","amount_paid":%d}}}`,
		id, EventType, time.Now().Unix(), seq, 100+seq%9900)
	e := &Event{ID: id, Seq: seq, Body: body}
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
	return e
}

// deliver tries one event until it is acknowledged, its attempts run out,
// its deadline passes or ctx is done.
func (s *Simulator) deliver(ctx context.Context, e *Event) {
	first := time.Now()
	deadline := first.Add(s.opts.Deadline)
	wait := s.opts.MinBackoff
	for attempt := 1; ; attempt++ {
		r := s.attempt(ctx, e, attempt)
		s.record(e, r, first)
		if r.Status >= 200 && r.Status < 300 {
			return
		}
		if attempt >= s.opts.MaxAttempts || ctx.Err() != nil {
			return
		}
		d := wait/2 + rand.N(wait/2+1)
		if r.RetryAfter > 0 {
			d = max(d, min(r.RetryAfter, s.opts.MaxBackoff))
		}
		if time.Now().Add(d).After(deadline) {
			return
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if time.Now().After(deadline) {
			return // the timer fired late: a loaded machine
		}
		wait = min(2*wait, s.opts.MaxBackoff)
	}
}

// attempt makes one signed POST of the event.
func (s *Simulator) attempt(ctx context.Context, e *Event, n int) Response {
	r := Response{EventID: e.ID, Attempt: n, Sent: time.Now()}
	// Each attempt is signed afresh, with its own timestamp, as Stripe does.
	h, err := signature.Sign(signature.Options{Scheme: "stripe", Secrets: []string{s.opts.Secret}}, 0,
		signature.Message{ID: e.ID, Type: EventType, Body: e.Body, Now: r.Sent})
	if err != nil {
		r.Err = fmt.Sprintf("sign: %v", err)
		r.Answered = time.Now()
		return r
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.opts.URL, bytes.NewReader(e.Body))
	if err != nil {
		r.Err = fmt.Sprintf("build request: %v", err)
		r.Answered = time.Now()
		return r
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		r.Err = err.Error()
		r.Answered = time.Now()
		return r
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	r.Answered = time.Now()
	r.Status = resp.StatusCode
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
		r.RetryAfter = time.Duration(secs) * time.Second
	}
	return r
}

// record notes one answer in the event and in the response log.
func (s *Simulator) record(e *Event, r Response, first time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.Attempts = r.Attempt
	e.FirstAt = first
	e.LastStatus, e.LastError = r.Status, r.Err
	if r.Status >= 200 && r.Status < 300 {
		e.Acked, e.AckedAt = true, r.Answered
	}
	s.responses = append(s.responses, r)
}
