package providersim

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

const testSecret = "whsec_cHJvdmlkZXJzaW0tdGVzdA"

// provider is a test endpoint that verifies each Stripe signature and
// answers what answer says for the nth try of an event.
type provider struct {
	mu    sync.Mutex
	tries map[string]int
	bad   int
}

func newProvider(t *testing.T, answer func(w http.ResponseWriter, try int)) (*provider, string) {
	t.Helper()
	p := &provider{tries: map[string]int{}}
	scheme, err := signature.New(signature.Options{Scheme: "stripe", Secrets: []string{testSecret}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev struct{ ID, Type string }
		_, verr := scheme.Verify(signature.Request{Header: r.Header, Body: body})
		if verr != nil || json.Unmarshal(body, &ev) != nil || ev.ID == "" || ev.Type != EventType {
			p.mu.Lock()
			p.bad++
			p.mu.Unlock()
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.tries[ev.ID]++
		n := p.tries[ev.ID]
		p.mu.Unlock()
		answer(w, n)
	}))
	t.Cleanup(srv.Close)
	return p, srv.URL + "/webhooks/stripe"
}

func TestSimulator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// answer is the status of the nth try of an event.
		answer       func(w http.ResponseWriter, try int)
		maxAttempts  int
		wantAcked    int
		wantAttempts int // per event
		wantStatuses map[int]int
	}{
		{
			name:         "acknowledged at once",
			answer:       func(w http.ResponseWriter, _ int) { w.WriteHeader(http.StatusOK) },
			wantAcked:    20,
			wantAttempts: 1,
			wantStatuses: map[int]int{200: 20},
		},
		{
			name: "retried after 503 and 500",
			answer: func(w http.ResponseWriter, try int) {
				switch try {
				case 1:
					w.Header().Set("Retry-After", "5")
					w.WriteHeader(http.StatusServiceUnavailable)
				case 2:
					w.WriteHeader(http.StatusInternalServerError)
				default:
					w.WriteHeader(http.StatusOK)
				}
			},
			wantAcked:    20,
			wantAttempts: 3,
			wantStatuses: map[int]int{503: 20, 500: 20, 200: 20},
		},
		{
			name:         "given up after max attempts",
			answer:       func(w http.ResponseWriter, _ int) { w.WriteHeader(http.StatusBadGateway) },
			maxAttempts:  4,
			wantAcked:    0,
			wantAttempts: 4,
			wantStatuses: map[int]int{502: 80},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, url := newProvider(t, tt.answer)
			sim, err := New(Options{
				URL: url, Secret: testSecret, Count: 20, Concurrency: 4,
				MaxAttempts: tt.maxAttempts, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			rep, err := sim.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("run took %v: Retry-After was not capped at MaxBackoff", took)
			}
			if rep.Sent() != 20 || len(rep.AckedIDs()) != tt.wantAcked || len(rep.Unacked()) != 20-tt.wantAcked {
				t.Errorf("sent %d, acked %d, unacked %d; want 20, %d, %d",
					rep.Sent(), len(rep.AckedIDs()), len(rep.Unacked()), tt.wantAcked, 20-tt.wantAcked)
			}
			for _, e := range rep.Events {
				if e.Attempts != tt.wantAttempts {
					t.Errorf("event %s: %d attempts, want %d", e.ID, e.Attempts, tt.wantAttempts)
				}
			}
			if got := rep.Statuses(); !equalCounts(got, tt.wantStatuses) {
				t.Errorf("statuses %v, want %v", got, tt.wantStatuses)
			}
			if p.bad != 0 {
				t.Errorf("%d requests were not validly signed Stripe events", p.bad)
			}
			if len(p.tries) != 20 {
				t.Errorf("provider saw %d distinct ids, want 20", len(p.tries))
			}
		})
	}
}

func TestSimulatorRecordsRefusedConnections(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	sim, err := New(Options{URL: "http://" + addr + "/webhooks/stripe", Secret: testSecret, Count: 3,
		MaxAttempts: 2, MinBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sim.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Statuses(); !equalCounts(got, map[int]int{0: 6}) {
		t.Errorf("statuses %v, want six tries without an answer", got)
	}
	for _, r := range rep.Responses {
		if r.Err == "" {
			t.Errorf("try %d of %s has no error", r.Attempt, r.EventID)
		}
	}
}

func TestSimulatorStopAndDeadline(t *testing.T) {
	t.Parallel()
	prov, url := newProvider(t, func(w http.ResponseWriter, _ int) { w.WriteHeader(http.StatusServiceUnavailable) })
	sim, err := New(Options{URL: url, Secret: testSecret, Concurrency: 2, Rate: 50,
		Deadline: 300 * time.Millisecond, MinBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sim.Start(context.Background())
	testkit.Eventually(t, 5*time.Second, "an event sent", func() error {
		prov.mu.Lock()
		defer prov.mu.Unlock()
		return testkit.Check(len(prov.tries) > 0, "none received")
	})
	sim.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rep, err := sim.Wait(ctx)
	if err != nil {
		t.Fatalf("events were not given up at their deadline: %v", err)
	}
	if rep.Sent() == 0 || len(rep.AckedIDs()) != 0 {
		t.Fatalf("sent %d, acked %d; want some sent and none acked", rep.Sent(), len(rep.AckedIDs()))
	}
	first := map[string]time.Time{}
	for _, e := range rep.Events {
		first[e.ID] = e.FirstAt
		if e.Attempts < 2 {
			t.Errorf("event %s tried %d times, want retries until its deadline", e.ID, e.Attempts)
		}
	}
	for _, r := range rep.Responses {
		if r.Sent.After(first[r.EventID].Add(300 * time.Millisecond)) {
			t.Errorf("try %d of %s began after the event's deadline", r.Attempt, r.EventID)
		}
	}
}

func TestReportWithin(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	rep := Report{Responses: []Response{
		{EventID: "before", Sent: at(0), Answered: at(2), Status: 200},
		{EventID: "inside", Sent: at(2), Answered: at(3), Status: 503},
		{EventID: "straddles", Sent: at(3), Answered: at(6), Status: 200},
		{EventID: "after", Sent: at(6), Answered: at(7), Status: 200},
	}}
	got := rep.Within(at(2), at(5))
	if len(got) != 1 || got[0].EventID != "inside" {
		t.Errorf("Within = %+v, want only the answer given inside the window", got)
	}
	if c := CountStatuses(rep.Responses); !equalCounts(c, map[int]int{200: 3, 503: 1}) {
		t.Errorf("CountStatuses = %v", c)
	}
}

func equalCounts(a, b map[int]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
