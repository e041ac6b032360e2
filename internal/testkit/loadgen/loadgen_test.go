package loadgen

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testSecret = "whsec_loadgen_test"

// testServer is a no-op webhook endpoint that records the ids it answered
// 200 and answers the rest as answer decides.
type testServer struct {
	*httptest.Server
	mu     sync.Mutex
	acked  map[string]int // guarded by mu
	bodies atomic.Int64
}

// newTestServer starts a server; answer gets the event id and how many
// times it was seen before, and returns the status code (0 means 200).
func newTestServer(t *testing.T, answer func(w http.ResponseWriter, id string, seen int) int) *testServer {
	t.Helper()
	s := &testServer{acked: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.bodies.Add(1)
		var ev struct{ ID string }
		if err := json.Unmarshal(body, &ev); err != nil || ev.ID == "" {
			http.Error(w, "no id", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		seen := s.acked[ev.ID]
		s.mu.Unlock()
		code := http.StatusOK
		if answer != nil {
			if c := answer(w, ev.ID, seen); c != 0 {
				code = c
			}
		}
		if code == http.StatusOK {
			s.mu.Lock()
			s.acked[ev.ID]++
			s.mu.Unlock()
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(s.Close)
	return s
}

// newFeed returns a StripeFeed or fails the test.
func newFeed(t *testing.T, secret string, size int) *StripeFeed {
	t.Helper()
	f, err := NewStripeFeed(secret, size)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (s *testServer) ackedIDs() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.acked))
	for k, v := range s.acked {
		out[k] = v
	}
	return out
}

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		answer       func(w http.ResponseWriter, id string, seen int) int
		max          int64
		wantAcked    int64
		wantStatuses map[int]int64
	}{
		{name: "all acknowledged", max: 300, wantAcked: 300, wantStatuses: map[int]int64{}},
		{
			name: "every fourth refused",
			answer: func(_ http.ResponseWriter, id string, _ int) int {
				if id[len(id)-1] == '3' || id[len(id)-1] == '7' {
					return http.StatusServiceUnavailable
				}
				return 0
			},
			max: 200, wantAcked: 160, wantStatuses: map[int]int64{503: 40},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, tt.answer)
			feed := newFeed(t, testSecret, 2048)
			feed.Prebuild(50)
			res, err := Run(context.Background(), Options{
				URL: srv.URL, Senders: 8, Duration: 20 * time.Second, MaxRequests: tt.max, Feed: feed,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Sent != tt.max || res.Acked != tt.wantAcked || res.Errors != 0 {
				t.Fatalf("sent %d acked %d errors %d (%s), want %d, %d, 0", res.Sent, res.Acked, res.Errors, res.FirstError, tt.max, tt.wantAcked)
			}
			if len(res.Statuses) != len(tt.wantStatuses) {
				t.Fatalf("statuses %v, want %v", res.Statuses, tt.wantStatuses)
			}
			for c, n := range tt.wantStatuses {
				if res.Statuses[c] != n {
					t.Fatalf("statuses %v, want %v", res.Statuses, tt.wantStatuses)
				}
			}
			ids := srv.ackedIDs()
			if int64(len(ids)) != tt.wantAcked {
				t.Fatalf("server acknowledged %d distinct ids, want %d", len(ids), tt.wantAcked)
			}
			for i := range tt.max {
				if n := ids[EventID(i)]; n > 1 {
					t.Fatalf("id %s sent %d times", EventID(i), n)
				}
			}
			// Stopped by count, the window is what actually ran; every
			// request finished inside it.
			if res.Measured != res.Sent || res.MeasuredAcked != res.Acked {
				t.Fatalf("measured %d/%d, want %d/%d", res.Measured, res.MeasuredAcked, res.Sent, res.Acked)
			}
			if res.Latency.Count != int(res.Acked) || res.Latency.P50 <= 0 || res.Latency.P99 < res.Latency.P50 || res.Latency.Max < res.Latency.P99 {
				t.Fatalf("latency %+v", res.Latency)
			}
			if res.Rate() <= 0 {
				t.Fatalf("rate %v", res.Rate())
			}
		})
	}
}

func TestRunWarmupIsNotMeasured(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(http.ResponseWriter, string, int) int {
		time.Sleep(2 * time.Millisecond) // a server that takes a while, so that the warmup sends a measurable part
		return 0
	})
	res, err := Run(context.Background(), Options{
		URL: srv.URL, Senders: 2, Warmup: 100 * time.Millisecond, Duration: 150 * time.Millisecond,
		MaxRequests: 400, Feed: newFeed(t, testSecret, 256),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Acked != res.Sent || res.Sent == 0 {
		t.Fatalf("sent %d acked %d", res.Sent, res.Acked)
	}
	if res.Measured == 0 || res.Measured >= res.Sent {
		t.Fatalf("measured %d of %d: the warmup should be left out", res.Measured, res.Sent)
	}
	if res.Window != 150*time.Millisecond {
		t.Fatalf("window %v", res.Window)
	}
	if got := srv.bodies.Load(); got != res.Sent {
		t.Fatalf("server read %d bodies, generator sent %d", got, res.Sent)
	}
}

func TestRunCountsErrors(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	url := srv.URL
	srv.Close()
	res, err := Run(context.Background(), Options{
		URL: url, Senders: 2, Duration: 5 * time.Second, MaxRequests: 10, Feed: newFeed(t, testSecret, 256),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 10 || res.Acked != 0 || res.FirstError == "" || res.Failed() != 10 {
		t.Fatalf("errors %d acked %d first %q", res.Errors, res.Acked, res.FirstError)
	}
}

func TestRunRejectsBadOptions(t *testing.T) {
	t.Parallel()
	if _, err := Run(context.Background(), Options{URL: "http://127.0.0.1:1"}); err == nil {
		t.Fatal("Run without senders, duration or feed: want an error")
	}
}

func TestBurst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		answer               func(w http.ResponseWriter, id string, seen int) int
		wantAcked, wantFirst int64
		wantShed, wantUnack  int64
	}{
		{name: "all at once", wantAcked: 20, wantFirst: 20},
		{
			name: "shed once then stored",
			answer: func() func(http.ResponseWriter, string, int) int {
				var mu sync.Mutex
				refused := map[string]bool{}
				return func(w http.ResponseWriter, id string, _ int) int {
					mu.Lock()
					defer mu.Unlock()
					if !refused[id] {
						refused[id] = true
						w.Header().Set("Retry-After", "0")
						return http.StatusServiceUnavailable
					}
					return 0
				}
			}(),
			wantAcked: 20, wantShed: 20,
		},
		{
			name:      "final refusal is not retried",
			answer:    func(http.ResponseWriter, string, int) int { return http.StatusUnauthorized },
			wantUnack: 20,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, tt.answer)
			res, err := Burst(context.Background(), BurstOptions{
				URL: srv.URL, Concurrency: 20, First: 100, Feed: newFeed(t, testSecret, 64<<10), Deadline: 10 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Acked != tt.wantAcked || res.FirstTry != tt.wantFirst || res.Shed != tt.wantShed || res.Unacked != tt.wantUnack {
				t.Fatalf("acked %d first %d shed %d unacked %d, want %d %d %d %d (%+v)",
					res.Acked, res.FirstTry, res.Shed, res.Unacked, tt.wantAcked, tt.wantFirst, tt.wantShed, tt.wantUnack, res)
			}
			if res.Retries != tt.wantShed {
				t.Fatalf("retries %d, want %d", res.Retries, tt.wantShed)
			}
			ids := srv.ackedIDs()
			if int64(len(ids)) != tt.wantAcked {
				t.Fatalf("server stored %d ids, want %d", len(ids), tt.wantAcked)
			}
			for i := range int64(tt.wantAcked) {
				if ids[EventID(100+i)] != 1 {
					t.Fatalf("id %s acknowledged %d times", EventID(100+i), ids[EventID(100+i)])
				}
			}
		})
	}
}

func TestBurstStopsAtDeadline(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, _ string, _ int) int {
		w.Header().Set("Retry-After", "0")
		return http.StatusServiceUnavailable
	})
	start := time.Now()
	res, err := Burst(context.Background(), BurstOptions{
		URL: srv.URL, Concurrency: 4, Feed: newFeed(t, testSecret, 256), Deadline: 300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("burst took %v past a 300ms deadline", took)
	}
	if res.Unacked != 4 || res.Acked != 0 || res.Shed < 4 {
		t.Fatalf("%+v", res)
	}
}

// TestRunPaced checks that a paced run never sends ahead of its rate and
// counts its 200s as they come.
func TestRunPaced(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, nil)
	feed, err := NewStripeFeed(testSecret, 256)
	if err != nil {
		t.Fatal(err)
	}
	var acked atomic.Int64
	res, err := Run(context.Background(), Options{
		URL: srv.URL, Senders: 8, Duration: 300 * time.Millisecond, Feed: feed, Rate: 50, Acked: &acked,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Request i goes out at i/50 s, and none at or after 300 ms: at most
	// requests 0 to 14.
	if res.Sent > 15 || res.Sent == 0 {
		t.Errorf("sent %d requests in 300ms at 50/s, want 1 to 15", res.Sent)
	}
	if acked.Load() != res.Acked || res.Acked != res.Sent {
		t.Errorf("counted %d 200s as they came, %d at the end, of %d sent", acked.Load(), res.Acked, res.Sent)
	}
}
