package receiver

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestSlowBodyHoldsWhatArrived checks that a request declaring a large
// body holds nothing of the budget while it trickles in: all of it stays
// free for other requests.
func TestSlowBodyHoldsWhatArrived(t *testing.T) {
	t.Parallel()
	const budget = 64 << 10
	b := newBodyBudget(budget, 100*time.Millisecond)
	pr, pw := io.Pipe()
	req := httptest.NewRequest(http.MethodPost, "/webhooks/x", pr)
	req.ContentLength = 1 << 20 // declared, sent slowly
	done := make(chan error, 1)
	go func() {
		_, held, err := b.readBody(httptest.NewRecorder(), req, 1<<20, nil)
		b.give(held)
		done <- err
	}()
	if _, err := pw.Write(make([]byte, freeBody-1)); err != nil {
		t.Fatal(err)
	}
	n, err := b.take(context.Background(), budget)
	if err != nil {
		t.Fatalf("the budget is held by a body that sent %d bytes: %v", freeBody-1, err)
	}
	b.give(n)
	_ = pw.CloseWithError(errors.New("client went away"))
	if err := <-done; !errors.Is(err, errBodyRead) {
		t.Fatalf("readBody of a body cut short: %v", err)
	}
	if n, err := b.take(context.Background(), budget); err != nil || n != budget {
		t.Fatalf("budget not whole after the request: %d, %v", n, err)
	}
}

// TestBodyReadsExactly checks the body read against its limit, with and
// without a declared length.
func TestBodyReadsExactly(t *testing.T) {
	t.Parallel()
	b := newBodyBudget(1<<20, time.Second)
	body := make([]byte, 100_000)
	for i := range body {
		body[i] = byte(i)
	}
	for _, tc := range []struct {
		name     string
		declared int64
		limit    int64
		want     error
	}{
		{"declared", int64(len(body)), 1 << 20, nil},
		{"declared, under freeBody", 100, 1 << 20, nil},
		{"undeclared", -1, 1 << 20, nil},
		{"undeclared at the limit", -1, int64(len(body)), nil},
		{"undeclared over the limit", -1, int64(len(body)) - 1, errBodyTooLarge},
		{"declared over the limit", int64(len(body)), int64(len(body)) - 1, errBodyTooLarge},
	} {
		req := httptest.NewRequest(http.MethodPost, "/webhooks/x", io.NopCloser(&slowReader{b: body}))
		req.ContentLength = tc.declared
		got, held, err := b.readBody(httptest.NewRecorder(), req, tc.limit, nil)
		b.give(held)
		want := body
		if tc.declared >= 0 && tc.declared < int64(len(body)) {
			want = body[:tc.declared]
		}
		if !errors.Is(err, tc.want) || (err == nil && string(got) != string(want)) {
			t.Errorf("%s: %d bytes, %v; want the body and %v", tc.name, len(got), err, tc.want)
		}
	}
}

// slowReader returns its bytes a few at a time.
type slowReader struct{ b []byte }

func (r *slowReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 777)], r.b)
	r.b = r.b[n:]
	return n, nil
}
