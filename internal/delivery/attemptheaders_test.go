package delivery

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestAttemptKeepsHeaders pushes to a destination that answers with a
// cookie and reads what the attempt keeps: every header sent as the
// destination received it, but the signature, cut short; the answer's
// headers, but the cookie's value.
func TestAttemptKeepsHeaders(t *testing.T) {
	t.Parallel()
	srv, seen := captureServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_42")
		w.Header().Add("Set-Cookie", "session=s3cr3t; HttpOnly")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	s := NewSender(Target{URL: srv.URL, Secret: testSecret}, 5*time.Second, 1, fixedNow)
	res := s.Send(context.Background(), testEvent(), testDelivery())
	got := <-seen
	a := res.Attempt(42)

	sig := got.header.Get(HeaderWebhookSignature)
	kept := a.RequestHeaders[HeaderWebhookSignature]
	if len(kept) != 1 || kept[0] != sig[:len("v1,")+signatureShown]+"…" {
		t.Errorf("kept signature %q, want the first %d characters of %q", kept, signatureShown, sig)
	}
	for k, vs := range a.RequestHeaders {
		if strings.Contains(strings.Join(vs, " "), sig[len("v1,"):]) {
			t.Errorf("header %s keeps the whole signature", k)
		}
		if k != HeaderWebhookSignature && !reflect.DeepEqual(vs, got.header[k]) {
			t.Errorf("kept %s: %q; the destination received %q", k, vs, got.header[k])
		}
	}
	for _, k := range []string{HeaderWebhookID, HeaderWebhookTimestamp, HeaderSource, HeaderEventType, HeaderEventID, HeaderAttempt, HeaderReplay, "Content-Type", "User-Agent"} {
		if a.RequestHeaders[k] == nil {
			t.Errorf("request header %s not kept; kept %v", k, a.RequestHeaders)
		}
	}
	if v := a.ResponseHeaders["X-Request-Id"]; !reflect.DeepEqual(v, []string{"req_42"}) {
		t.Errorf("response X-Request-Id kept as %q", v)
	}
	if v := a.ResponseHeaders["Set-Cookie"]; !reflect.DeepEqual(v, []string{notKept}) {
		t.Errorf("response Set-Cookie kept as %q, want %q", v, notKept)
	}
}

// TestAttemptThatWorkedKeepsNoHeaders: a delivered attempt keeps none.
func TestAttemptThatWorkedKeepsNoHeaders(t *testing.T) {
	t.Parallel()
	srv, _ := captureServer(t, nil)
	s := NewSender(Target{URL: srv.URL, Secret: testSecret}, 5*time.Second, 1, fixedNow)
	res := s.Send(context.Background(), testEvent(), testDelivery())
	if a := res.Attempt(42); res.Sent != nil || a.RequestHeaders != nil || a.ResponseHeaders != nil {
		t.Errorf("a delivered attempt keeps headers %v / %v", a.RequestHeaders, a.ResponseHeaders)
	}
}

// TestAttemptWithoutAnswer keeps the headers sent and none answered when
// the destination cannot be reached.
func TestAttemptWithoutAnswer(t *testing.T) {
	t.Parallel()
	s := NewSender(Target{URL: "http://127.0.0.1:1/", Secret: testSecret}, time.Second, 1, fixedNow)
	a := s.Send(context.Background(), testEvent(), testDelivery()).Attempt(42)
	if a.RequestHeaders[HeaderWebhookID] == nil || a.ResponseHeaders != nil {
		t.Errorf("attempt headers = %v / %v; want those sent and none answered", a.RequestHeaders, a.ResponseHeaders)
	}
}

func TestMaskSignatures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=", "v1,K5oZfzN9…"},
		{"v1,abc v1a,0123456789abcdef", "v1,abc v1a,01234567…"},
		{"nocomma0123456789", "nocomma0…"},
		{"", ""},
	} {
		if got := maskSignatures(tc.in); got != tc.want {
			t.Errorf("maskSignatures(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
