package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// The hostile-input tests (hostile_*_test.go) attack a real relay the way
// the internet would: slow clients, huge and endless bodies, forged
// signatures, crafted headers, and every admin route without the right
// token. Each logs its figures in one line that starts with RELIABILITY,
// for RELIABILITY.md.

// hostileStripe signs body as Stripe would with stripeSecret and returns
// the request to the relay's Stripe source, with extra headers added
// first so that the signature headers always win.
func hostileStripe(t testing.TB, p *relayProc, body []byte, extra http.Header) *http.Request {
	t.Helper()
	h, err := signature.Sign(signature.Options{Scheme: "stripe", Secrets: []string{stripeSecret}}, 0, signature.Message{Body: body})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+p.public+"/webhooks/stripe", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range extra {
		req.Header[k] = v
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}

// hostileDo sends req and returns its status code and answer, draining the
// body so that the connection is reused.
func hostileDo(client *http.Client, req *http.Request) (int, http.Header, []byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body, err
}

// stripeEvent is a Stripe event body with id and an optional extra field.
func stripeEvent(id, extra string) []byte {
	if extra != "" {
		extra = "," + extra
	}
	return fmt.Appendf(nil, `{"id":%q,"type":"invoice.paid","created":%d%s}`, id, time.Now().Unix(), extra)
}

// peakRSS returns the relay's peak resident set size (VmHWM) in bytes.
func peakRSS(t *testing.T, p *relayProc) int64 {
	t.Helper()
	_, hwm, err := relayproc.Memory(p.Pid())
	if err != nil {
		t.Fatal(err)
	}
	return hwm
}

// countRejections returns how many rejection records the relay's store
// holds.
func countRejections(t *testing.T, st store.Store) int {
	t.Helper()
	rs, err := st.Rejections(context.Background(), 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	return len(rs)
}

// recorded is one request a recorder received.
type recorded struct {
	header http.Header
	host   string
	body   []byte
}

// recorder is a push destination that keeps every request it receives.
// answer decides the status and body of the answer to the nth request
// (from 1); nil answers 200 with no body.
type recorder struct {
	srv    *httptest.Server
	answer func(n int) (int, string)

	mu   sync.Mutex
	reqs []recorded // guarded by mu
}

func newRecorder(t *testing.T, answer func(n int) (int, string)) *recorder {
	t.Helper()
	rec := &recorder{answer: answer}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, recorded{header: r.Header.Clone(), host: r.Host, body: body})
		n := len(rec.reqs)
		rec.mu.Unlock()
		status, answer := http.StatusOK, ""
		if rec.answer != nil {
			status, answer = rec.answer(n)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (rec *recorder) received() []recorded {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]recorded(nil), rec.reqs...)
}

// waitReceived waits until the recorder holds n requests, or fails.
func (rec *recorder) waitReceived(t *testing.T, n int, within time.Duration) []recorded {
	t.Helper()
	var got []recorded
	testkit.Eventually(t, within, fmt.Sprintf("%d requests at the destination", n), func() error {
		got = rec.received()
		return testkit.Check(len(got) >= n, "%d received", len(got))
	})
	return got
}

// latencies summarises durations: median and maximum.
type latencies []time.Duration

func (l latencies) summary() (p50, maxd time.Duration) {
	if len(l) == 0 {
		return 0, 0
	}
	s := append(latencies(nil), l...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2], s[len(s)-1]
}

// countStored returns how many events of source the store holds.
func countStored(t *testing.T, st store.Store, source string) int64 {
	t.Helper()
	n, err := st.CountEvents(context.Background(), source)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// hostileAdmin calls the relay's admin API with a bearer token (none when
// empty) and returns the status and answer.
func hostileAdmin(t *testing.T, p *relayProc, token, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+p.admin+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	status, _, answer, err := hostileDo(http.DefaultClient, req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return status, answer
}
