package delivery

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// testSecret is a whsec_ secret for tests: "hookrelay-test-secret-0123456789".
const testSecret = "whsec_aG9va3JlbGF5LXRlc3Qtc2VjcmV0LTAxMjM0NTY3ODk="

var testNow = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func fixedNow() time.Time { return testNow }

func testEvent() store.Event {
	return store.Event{
		ID:              "01JTESTEVENT0000000000000A",
		Source:          "stripe",
		ProviderEventID: "evt_123",
		Type:            "invoice.paid",
		// Bytes a re-encoder would change: spacing, key order, a trailing
		// newline and invalid UTF-8.
		Body:        []byte("{\"b\": 1,  \"a\":\"\xff\xfe\"}\n"),
		ContentType: "application/json; charset=utf-8",
		Headers: map[string][]string{
			"Stripe-Signature": {"t=1,v1=abc"},
			"X-Request-Id":     {"req-1", "req-2"},
		},
		OccurredAt: time.Date(2026, 3, 4, 6, 0, 0, 0, time.FixedZone("CET", 3600)),
		ReceivedAt: testNow,
	}
}

func testDelivery() store.Delivery {
	return store.Delivery{ID: 42, EventID: "01JTESTEVENT0000000000000A", Destination: "billing", Attempts: 3, ReplayCount: 2}
}

// captured is what a test destination saw of one request.
type captured struct {
	method string
	header http.Header
	body   []byte
}

func captureServer(t *testing.T, answer http.HandlerFunc) (*httptest.Server, chan captured) {
	t.Helper()
	seen := make(chan captured, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen <- captured{method: r.Method, header: r.Header.Clone(), body: b}
		if answer != nil {
			answer(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, seen
}

func TestSendRequest(t *testing.T) {
	t.Parallel()
	srv, seen := captureServer(t, nil)
	ev, d := testEvent(), testDelivery()
	s := NewSender(Target{URL: srv.URL + "/hooks?x=1", Secret: testSecret}, 5*time.Second, 1, fixedNow)

	res := s.Send(context.Background(), ev, d)
	if res.Outcome != store.StatusDone || res.StatusCode != 200 || res.Error != "" {
		t.Fatalf("Send = %+v, want done 200", res)
	}
	if !res.AttemptedAt.Equal(testNow) {
		t.Errorf("AttemptedAt = %v, want %v", res.AttemptedAt, testNow)
	}
	got := <-seen
	if got.method != http.MethodPost {
		t.Errorf("method = %s, want POST", got.method)
	}
	if !bytes.Equal(got.body, ev.Body) {
		t.Errorf("body = %q, want the stored bytes %q", got.body, ev.Body)
	}
	want := map[string]string{
		"Content-Type":          "application/json; charset=utf-8",
		"Webhook-Id":            ev.ID,
		"Webhook-Timestamp":     "1772600767",
		"Hookrelay-Source":      "stripe",
		"Hookrelay-Event-Type":  "invoice.paid",
		"Hookrelay-Event-Id":    "evt_123",
		"Hookrelay-Attempt":     "3",
		"Hookrelay-Occurred-At": "2026-03-04T05:00:00Z",
		"Hookrelay-Replay":      "2",
		"Content-Length":        strconv.Itoa(len(ev.Body)),
	}
	for k, v := range want {
		if g := got.header.Get(k); g != v {
			t.Errorf("header %s = %q, want %q", k, g, v)
		}
	}
	if !verifyStandard(testSecret, got.header, got.body, testNow) {
		t.Errorf("webhook-signature %q does not verify", got.header.Get("Webhook-Signature"))
	}
	if got.header.Get("Stripe-Signature") != "" || got.header.Get("X-Request-Id") != "" {
		t.Error("provider headers forwarded without forward_headers")
	}
}

func TestHeadersStableWebhookID(t *testing.T) {
	t.Parallel()
	ev := testEvent()
	tg := Target{Secret: testSecret}
	var ids []string
	for i, d := range []store.Delivery{{Attempts: 1}, {Attempts: 2}, {Attempts: 1, ReplayCount: 1}} {
		h, err := tg.Headers(ev, d, testNow.Add(time.Duration(i)*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, h.Get("webhook-id"))
		if !verifyStandard(testSecret, h, ev.Body, testNow.Add(time.Duration(i)*time.Hour)) {
			t.Errorf("attempt %d: signature does not verify", i)
		}
	}
	if ids[0] != ev.ID || ids[1] != ev.ID || ids[2] != ev.ID {
		t.Errorf("webhook-id across attempts and replays = %q, want %q each time", ids, ev.ID)
	}
}

func TestHeadersOmitEmpty(t *testing.T) {
	t.Parallel()
	ev := testEvent()
	ev.OccurredAt = time.Time{}
	ev.Type = ""
	h, err := Target{Secret: testSecret}.Headers(ev, testDelivery(), testNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{HeaderOccurredAt, HeaderEventType} {
		if _, ok := h[k]; ok {
			t.Errorf("%s present for an empty value", k)
		}
	}
	if h.Get(HeaderReplay) != "2" {
		t.Errorf("%s = %q", HeaderReplay, h.Get(HeaderReplay))
	}
}

func TestHeadersSignPublishedVector(t *testing.T) {
	t.Parallel()
	n := 0
	for _, v := range loadStandardVectors(t) {
		sig := v.Headers["webhook-signature"]
		if !v.ExpectedValid || !strings.HasPrefix(v.Secret, "whsec_") || strings.Contains(sig, " ") {
			continue
		}
		n++
		ts := time.Unix(v.Now, 0)
		ev := store.Event{ID: v.Headers["webhook-id"], Body: []byte(v.Body)}
		h, err := Target{Secret: v.Secret}.Headers(ev, store.Delivery{}, ts)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if h.Get("webhook-signature") != sig || h.Get("webhook-timestamp") != v.Headers["webhook-timestamp"] {
			t.Errorf("%s: signed %q at %q, want %q at %q", v.Name,
				h.Get("webhook-signature"), h.Get("webhook-timestamp"), sig, v.Headers["webhook-timestamp"])
		}
	}
	if n == 0 {
		t.Fatal("no signing vector found")
	}
}

func TestHeadersForwarded(t *testing.T) {
	t.Parallel()
	ev := testEvent()
	ev.Headers = map[string][]string{
		"Stripe-Signature":      {"t=1,v1=abc"},
		"X-Request-Id":          {"req-1", "req-2"},
		"User-Agent":            {"Stripe/1.0"},
		"Connection":            {"keep-alive, X-Hop"},
		"X-Hop":                 {"named in Connection"},
		"Keep-Alive":            {"timeout=5"},
		"Transfer-Encoding":     {"chunked"},
		"Upgrade":               {"h2c"},
		"Te":                    {"trailers"},
		"Trailer":               {"X-Sum"},
		"Proxy-Authorization":   {"Basic Zm9v"},
		"Host":                  {"evil.example"},
		"Content-Length":        {"99999"},
		"Content-Type":          {"text/evil"},
		"Expect":                {"100-continue"},
		"Webhook-Id":            {"provider-id"},
		"Webhook-Signature":     {"v1,provider"},
		"Hookrelay-Replay":      {"7"},
		"Hookrelay-Occurred-At": {"1999-01-01T00:00:00Z"},
		"X-Crlf":                {"a\r\nX-Injected: 1"},
		"X-Lf":                  {"a\nX-Injected: 1"},
		"X-Nul":                 {"a\x00b"},
		"X-Mixed":               {"good", "bad\r\nX-Injected: 1"},
		"Bad Name":              {"x"},
		"X-Injected: 1\r\nX":    {"x"},
	}
	ev.OccurredAt = time.Time{}
	srv, seen := captureServer(t, nil)
	s := NewSender(Target{URL: srv.URL, Secret: testSecret, ForwardHeaders: true}, 5*time.Second, 1, fixedNow)
	if res := s.Send(context.Background(), ev, testDelivery()); res.Outcome != store.StatusDone {
		t.Fatalf("Send = %+v", res)
	}
	got := (<-seen).header

	wantValues := map[string][]string{
		"Stripe-Signature": {"t=1,v1=abc"},
		"X-Request-Id":     {"req-1", "req-2"},
		"User-Agent":       {"Stripe/1.0"},
		"X-Mixed":          {"good"},
		"Content-Type":     {"application/json; charset=utf-8"},
		"Content-Length":   {strconv.Itoa(len(ev.Body))},
		"Webhook-Id":       {ev.ID},
		"Hookrelay-Replay": {"2"},
	}
	for k, want := range wantValues {
		if g := got.Values(k); strings.Join(g, "|") != strings.Join(want, "|") {
			t.Errorf("header %s = %q, want %q", k, g, want)
		}
	}
	for _, k := range []string{"X-Hop", "Keep-Alive", "Upgrade", "Te", "Trailer", "Proxy-Authorization",
		"Expect", "Hookrelay-Occurred-At", "X-Crlf", "X-Lf", "X-Nul", "X-Injected", "Bad Name"} {
		if v, ok := got[k]; ok {
			t.Errorf("header %s forwarded: %q", k, v)
		}
	}
	if !verifyStandard(testSecret, got, ev.Body, testNow) {
		t.Error("signature does not verify")
	}
}

func TestHeadersDropUnsendableEventFields(t *testing.T) {
	t.Parallel()
	ev := testEvent()
	ev.Type = "invoice.paid\r\nX-Injected: 1"
	ev.ProviderEventID = "evt\n1"
	srv, seen := captureServer(t, nil)
	s := NewSender(Target{URL: srv.URL, Secret: testSecret}, 5*time.Second, 1, fixedNow)
	if res := s.Send(context.Background(), ev, testDelivery()); res.Outcome != store.StatusDone {
		t.Fatalf("Send = %+v, want done", res)
	}
	got := (<-seen).header
	for _, k := range []string{"X-Injected", HeaderEventType, HeaderEventID} {
		if v, ok := got[k]; ok {
			t.Errorf("header %s sent: %q", k, v)
		}
	}
}

func TestSendOutcomes(t *testing.T) {
	t.Parallel()
	long := bytes.Repeat([]byte("0123456789abcdef"), 200) // 3200 bytes
	tests := []struct {
		name           string
		answer         http.HandlerFunc
		wantOutcome    store.DeliveryStatus
		wantCode       int
		wantError      string
		wantRetryAfter time.Duration
		wantSnippet    string
	}{
		{
			name:        "200 is done",
			answer:      func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") },
			wantOutcome: store.StatusDone, wantCode: 200, wantSnippet: "ok",
		},
		{
			name:        "204 is done",
			answer:      func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) },
			wantOutcome: store.StatusDone, wantCode: 204,
		},
		{
			name: "2xx with outcome skipped",
			answer: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("hookrelay-outcome", "Skipped ")
				w.WriteHeader(202)
			},
			wantOutcome: store.StatusSkipped, wantCode: 202,
		},
		{
			name: "skipped on a non-2xx is a failure",
			answer: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("hookrelay-outcome", "skipped")
				w.WriteHeader(409)
			},
			wantOutcome: store.StatusFailed, wantCode: 409, wantError: "status 409",
		},
		{
			name:        "500 is failed",
			answer:      func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", 500) },
			wantOutcome: store.StatusFailed, wantCode: 500, wantError: "status 500", wantSnippet: "boom\n",
		},
		{
			name: "429 with Retry-After seconds",
			answer: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", "30")
				w.WriteHeader(429)
			},
			wantOutcome: store.StatusFailed, wantCode: 429, wantError: "status 429", wantRetryAfter: 30 * time.Second,
		},
		{
			name: "503 with Retry-After date",
			answer: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", testNow.Add(2*time.Minute).Format(http.TimeFormat))
				w.WriteHeader(503)
			},
			wantOutcome: store.StatusFailed, wantCode: 503, wantError: "status 503", wantRetryAfter: 2 * time.Minute,
		},
		{
			name: "redirect is not followed",
			answer: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://127.0.0.1:1/elsewhere", http.StatusTemporaryRedirect)
			},
			wantOutcome: store.StatusFailed, wantCode: 307, wantError: "status 307: redirect not followed",
		},
		{
			name:        "snippet truncated at 1 KiB",
			answer:      func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(long) },
			wantOutcome: store.StatusDone, wantCode: 200, wantSnippet: string(long[:SnippetLimit]),
		},
		{
			name: "huge body read no further than needed",
			answer: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(200)
				chunk := bytes.Repeat([]byte("x"), 64<<10)
				for range 1024 { // 64 MiB unless the client stops reading
					if _, err := w.Write(chunk); err != nil || r.Context().Err() != nil {
						return
					}
				}
			},
			wantOutcome: store.StatusDone, wantCode: 200, wantSnippet: strings.Repeat("x", SnippetLimit),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.answer)
			t.Cleanup(srv.Close)
			s := NewSender(Target{URL: srv.URL, Secret: testSecret}, 5*time.Second, 1, fixedNow)
			res := s.Send(context.Background(), testEvent(), testDelivery())
			if res.Outcome != tt.wantOutcome || res.StatusCode != tt.wantCode || res.Error != tt.wantError ||
				res.RetryAfter != tt.wantRetryAfter || string(res.Snippet) != tt.wantSnippet {
				t.Errorf("Send = {%s %d %q retry-after %v snippet %d bytes}, want {%s %d %q retry-after %v snippet %d bytes}",
					res.Outcome, res.StatusCode, res.Error, res.RetryAfter, len(res.Snippet),
					tt.wantOutcome, tt.wantCode, tt.wantError, tt.wantRetryAfter, len(tt.wantSnippet))
			}
		})
	}
}

func TestSendRedirectTargetNeverCalled(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(other.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL, http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	res := NewSender(Target{URL: srv.URL, Secret: testSecret}, 5*time.Second, 1, fixedNow).Send(context.Background(), testEvent(), testDelivery())
	if res.Outcome != store.StatusFailed || res.StatusCode != 302 {
		t.Errorf("Send = %s %d, want failed 302", res.Outcome, res.StatusCode)
	}
	if hits.Load() != 0 {
		t.Error("redirect followed")
	}
}

func TestSendTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	s := NewSender(Target{URL: srv.URL, Secret: testSecret}, 100*time.Millisecond, 1, nil)
	start := time.Now()
	res := s.Send(context.Background(), testEvent(), testDelivery())
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Send took %v with a 100ms timeout", took)
	}
	if res.Outcome != store.StatusFailed || res.StatusCode != 0 || res.Error != "timeout after 100ms" {
		t.Errorf("Send = %s %d %q, want failed 0 \"timeout after 100ms\"", res.Outcome, res.StatusCode, res.Error)
	}
	if res.Duration < 100*time.Millisecond {
		t.Errorf("Duration = %v, want at least the timeout", res.Duration)
	}
}

func TestSendConnectionRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	s := NewSender(Target{URL: "http://" + addr + "/hooks?token=hunter2", Secret: testSecret}, 2*time.Second, 1, fixedNow)
	res := s.Send(context.Background(), testEvent(), testDelivery())
	if res.Outcome != store.StatusFailed || res.StatusCode != 0 || !strings.Contains(res.Error, "connection refused") {
		t.Errorf("Send = %s %d %q, want failed 0 with connection refused", res.Outcome, res.StatusCode, res.Error)
	}
	if strings.Contains(res.Error, "hunter2") {
		t.Errorf("error %q carries the URL's query", res.Error)
	}
}

func TestSendBadSecret(t *testing.T) {
	t.Parallel()
	srv, seen := captureServer(t, nil)
	res := NewSender(Target{URL: srv.URL, Secret: "whsec_!!!"}, time.Second, 1, fixedNow).Send(context.Background(), testEvent(), testDelivery())
	if res.Outcome != store.StatusFailed || res.Error == "" {
		t.Errorf("Send = %+v, want failed with an error", res)
	}
	select {
	case <-seen:
		t.Error("an unsigned request was sent")
	default:
	}
}
