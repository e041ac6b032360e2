package e2e

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// startRole starts `hookrelay serve --role role` on fresh ports and waits
// until its admin listener is ready. It is killed at the end of the test if
// still running.
func startRole(t *testing.T, role, database, body string, env []string) *relayProc {
	t.Helper()
	return launchRelay(t, role+" relay", database, body, env, "--role", role)
}

// sigkill sends SIGKILL and waits for the process to be gone.
func (p *relayProc) sigkill(t *testing.T) {
	t.Helper()
	if err := p.Signal(syscall.SIGKILL, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}

// sink is a push destination on 127.0.0.1 that records every delivery it
// receives, checks its Standard Webhooks signature, and answers 200.
type sink struct {
	url    string
	verify signature.Scheme
	// latency is the most a request waits, at random, before its answer.
	latency time.Duration

	mu     sync.Mutex     // guards the fields below
	seen   map[string]int // deliveries received, by provider event id
	ids    map[string]string
	total  int
	badSig int
}

// newSink serves a sink on addr ("" for any free loopback port) until the
// test ends. It verifies signatures with secret.
func newSink(t *testing.T, addr, secret string, latency time.Duration) *sink {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	verify, err := signature.New(signature.Options{Scheme: "standard", Secrets: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{url: "http://" + ln.Addr().String() + "/hooks", verify: verify, latency: latency,
		seen: map[string]int{}, ids: map[string]string{}}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	_, verr := s.verify.Verify(signature.Request{Header: r.Header, Body: body, Now: time.Now()})
	id := r.Header.Get("Hookrelay-Event-Id")
	s.mu.Lock()
	s.seen[id]++
	s.ids[id] = r.Header.Get("Webhook-Id")
	s.total++
	if verr != nil {
		s.badSig++
	}
	s.mu.Unlock()
	if s.latency > 0 {
		time.Sleep(rand.N(s.latency)) // a destination that takes a while to answer
	}
	w.WriteHeader(http.StatusOK)
}

// received returns how many deliveries arrived, repeats included.
func (s *sink) received() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// tally compares what arrived with the provider event ids expected: the
// ids that never arrived, how many deliveries were repeats, and how many
// carried a bad signature. It fails the test on an id nobody sent.
func (s *sink) tally(t *testing.T, want []string) (missing []string, duplicates, badSig int) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	expected := make(map[string]bool, len(want))
	for _, id := range want {
		expected[id] = true
		switch n := s.seen[id]; {
		case n == 0:
			missing = append(missing, id)
		case n > 1:
			duplicates += n - 1
		}
	}
	for id := range s.seen {
		if !expected[id] {
			t.Errorf("the sink received unexpected event %q", id)
		}
	}
	webhookIDs := map[string]bool{}
	for _, wid := range s.ids {
		webhookIDs[wid] = true
	}
	if len(webhookIDs) != len(s.ids) {
		t.Errorf("%d events arrived under only %d distinct webhook-ids", len(s.ids), len(webhookIDs))
	}
	return missing, duplicates, s.badSig
}

// postAll posts signed Stripe events with the given ids to p's ingest
// listener from `senders` goroutines, each retried until answered 200 or
// for at most 20s. It returns an error naming the first event never stored,
// and posts nothing more once one is not. It may run outside the test's
// goroutine.
func postAll(p *relayProc, ids []string, senders int) error {
	url := "http://" + p.public + "/webhooks/stripe"
	client := &http.Client{Timeout: 10 * time.Second}
	next := make(chan string)
	var (
		mu       sync.Mutex
		failed   []string
		wg       sync.WaitGroup
		giveUp   = make(chan struct{})
		giveOnce sync.Once
	)
	for range senders {
		wg.Go(func() {
			for id := range next {
				if err := postUntilStored(client, url, id, 20*time.Second); err != nil {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("%s: %v", id, err))
					mu.Unlock()
					giveOnce.Do(func() { close(giveUp) })
				}
			}
		})
	}
feed:
	for _, id := range ids {
		select {
		case next <- id:
		case <-giveUp:
			break feed
		}
	}
	close(next)
	wg.Wait()
	if len(failed) > 0 {
		return fmt.Errorf("%d events not stored, first: %s", len(failed), failed[0])
	}
	return nil
}

// postUntilStored posts one event until it is answered 200, for at most
// limit.
func postUntilStored(client *http.Client, url, id string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		status, err := postStripe(client, url, id)
		if err == nil && status == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("last answer %d, %v", status, err)
		}
		time.Sleep(50 * time.Millisecond) // a provider's pause before it retries
	}
}
