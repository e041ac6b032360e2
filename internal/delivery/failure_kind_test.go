package delivery

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/failure"
	"github.com/hookrelay/hookrelay/internal/store"
)

// TestFailureKindOfWhatSendWrites pushes to destinations that fail in
// each way a real one does and checks that what Send records — the status
// code and error text a failed delivery keeps — is filed under the kind an
// operator would name: failure.Classify reads exactly these texts.
func TestFailureKindOfWhatSendWrites(t *testing.T) {
	t.Parallel()
	answer := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if code/100 == 3 {
				w.Header().Set("Location", "/elsewhere")
			}
			w.WriteHeader(code)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	closed := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		_ = ln.Close()
		return "http://" + addr
	}
	hangs := func() string {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		t.Cleanup(func() { close(release); srv.Close() })
		return srv.URL
	}
	hangsUp := func() string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	untrusted := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	untrusted.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	untrusted.StartTLS()
	t.Cleanup(untrusted.Close)
	plain := answer(200)

	cases := []struct {
		name   string
		url    string
		secret string
		want   failure.Kind
	}{
		{"5xx", answer(503), testSecret, failure.Status5xx},
		{"4xx", answer(404), testSecret, failure.Status4xx},
		{"redirect", answer(302), testSecret, failure.Redirect},
		{"timeout", hangs(), testSecret, failure.Timeout},
		{"refused", closed(), testSecret, failure.Refused},
		{"certificate of an unknown authority", untrusted.URL, testSecret, failure.TLS},
		{"https to a plain HTTP server", "https" + plain[len("http"):], testSecret, failure.TLS},
		{"connection closed without an answer", hangsUp(), testSecret, failure.Connection},
		{"secret that does not decode", plain, "whsec_!!!", failure.Signature},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			timeout := 10 * time.Second // a handshake on a busy machine is slow
			if c.want == failure.Timeout {
				timeout = 300 * time.Millisecond
			}
			res := NewSender(Target{URL: c.url, Secret: c.secret}, timeout, 1, nil).Send(context.Background(), testEvent(), testDelivery())
			if res.Outcome != store.StatusFailed {
				t.Fatalf("Send = %+v, want failed", res)
			}
			if got := failure.Classify(res.StatusCode, res.Error); got != c.want {
				t.Errorf("Send recorded %d %q, filed under %s, want %s", res.StatusCode, res.Error, got, c.want)
			}
		})
	}
}

// TestFailureKindOfAnUnknownHost looks up a name that cannot exist (the
// .invalid domain is reserved): whatever the machine's resolver says —
// no such host, or a resolver that cannot be reached — it is a DNS
// failure, or a timeout when the resolver does not answer in time.
func TestFailureKindOfAnUnknownHost(t *testing.T) {
	t.Parallel()
	res := NewSender(Target{URL: "http://hookrelay-failure-kind.invalid/hooks", Secret: testSecret}, 5*time.Second, 1, nil).
		Send(context.Background(), testEvent(), testDelivery())
	switch got := failure.Classify(res.StatusCode, res.Error); {
	case got == failure.DNS:
	case got == failure.Timeout && res.Error == "timeout after 5s":
		t.Logf("the resolver did not answer within the timeout: %q", res.Error)
	default:
		t.Errorf("Send recorded %d %q, filed under %s, want dns", res.StatusCode, res.Error, got)
	}
}
