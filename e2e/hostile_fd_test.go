package e2e

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// The descriptor-exhaustion test runs the relay with a low descriptor
// limit and floods its public port with idle connections, more than the
// limit.
const (
	fdLimit = 256
	fdFlood = 600
	// The flood's connections are held open until the sender on the
	// connection opened before it has been answered fdKeptAnswers times,
	// and the one that connects anew fdNewAnswers times (it waits in the
	// kernel's queue).
	fdKeptAnswers = 10
	fdNewAnswers  = 3
	// fdRecover bounds how long after the flood a genuine webhook may
	// still be refused.
	fdRecover = 10 * time.Second
)

// The read-header timeout is short, so that the flood's connections
// cycle through the relay's cap in seconds, and not shorter than a busy
// test machine may take between a sender's dial and its request.
const fdReadHeaderTimeout = 2 * time.Second

// statusCut stands for a webhook whose connection was closed without an
// answer once the read-header timeout had passed: the relay got no
// headers in time because this process, or the relay, was not scheduled
// (a loaded CI machine; a read whose deadline has passed fails even when
// its bytes have arrived). It is tried again, not counted as a refusal. A
// relay that answers nothing makes the client time out instead, and one
// that closes a connection at once cuts it before the timeout.
const statusCut = -2

var fdConfig = "ingest:\n  read_header_timeout: " + fdReadHeaderTimeout.String() + "\n" + stripeSource

// TestHostileDescriptorExhaustion floods the public port of a relay whose
// descriptor limit is 256 with 600 idle connections. A provider whose
// keep-alive connection was open before the flood keeps getting 200s
// through it (the WAL's sync needs no new descriptor), one that connects
// anew waits in the kernel's queue and is then served, the relay never
// holds more descriptors than its limit allows, and afterwards every
// webhook is answered 200 with /healthz and /readyz 200: no moment without
// descriptors becomes an outage. Every acknowledged event is stored.
func TestHostileDescriptorExhaustion(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			limit := fmt.Sprintf("--nofile=%d:%d", fdLimit, fdLimit)
			p := launchWrapped(t, "relay", []string{"prlimit", limit, "--"}, db, fdConfig, stripeEnv)

			var (
				seq      atomic.Int64
				errsMu   sync.Mutex
				postErrs []string // the first few errors a sender got, for the failure message
			)
			// post sends one webhook and returns its status, statusCut and
			// the error when its connection was cut at the read-header
			// timeout, or -1 and the error when it got no answer.
			post := func(client *http.Client) (int, error) {
				start := time.Now()
				req := hostileStripe(t, p, stripeEvent(fmt.Sprintf("evt_fd_%d", seq.Add(1)), ""), nil)
				status, _, _, err := hostileDo(client, req)
				if err != nil {
					took := time.Since(start)
					err = fmt.Errorf("after %v: %w", took.Round(time.Millisecond), err)
					errsMu.Lock()
					if len(postErrs) < 5 {
						postErrs = append(postErrs, err.Error())
					}
					errsMu.Unlock()
					if took >= fdReadHeaderTimeout && !isTimeout(err) {
						return statusCut, err
					}
					return -1, err
				}
				return status, nil
			}
			kept := &http.Client{Timeout: 20 * time.Second} // one connection, opened before the flood
			fresh := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			if s, err := post(kept); s != 200 {
				t.Fatalf("before the flood: %d %v", s, err)
			}

			stop := make(chan struct{})
			var (
				wg                    sync.WaitGroup
				mu                    sync.Mutex
				keptStatus, newStatus = map[int]int{}, map[int]int{}
				peakFDs               int
			)
			sender := func(client *http.Client, into map[int]int) {
				for {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					s, _ := post(client)
					mu.Lock()
					into[s]++
					mu.Unlock()
				}
			}
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					if n := openFDs(p.Pid()); n > 0 {
						mu.Lock()
						peakFDs = max(peakFDs, n)
						mu.Unlock()
					}
				}
			})

			// The senders start once the flood holds its connections: a
			// sender dialing among the flood's 600 dials in this process
			// could be scheduled past the read-header timeout between its
			// dial and its request, which would measure this test's own
			// stall, not the relay.
			conns, dialFailed := floodIdle(p.public, fdFlood)
			wg.Go(func() { sender(kept, keptStatus) })
			wg.Go(func() { sender(fresh, newStatus) })
			testkit.Eventually(t, 30*time.Second, "both senders answered under the flood", func() error {
				mu.Lock()
				defer mu.Unlock()
				return testkit.Check(keptStatus[200] >= fdKeptAnswers && newStatus[200] >= fdNewAnswers, "kept connection %v, new connections %v", keptStatus, newStatus)
			})
			for _, c := range conns {
				_ = c.Close()
			}
			close(stop)
			wg.Wait()

			// Afterwards: every webhook on a new connection is stored,
			// within fdRecover of the flood's end.
			// A refusal is allowed within fdRecover of the flood's end,
			// not after it; the ten in a row may take longer to send. A
			// connection cut at the read-header timeout is tried again.
			start, ok := time.Now(), 0
			testkit.Eventually(t, fdRecover+30*time.Second, "ten webhooks in a row answered 200 after the flood", func() error {
				s, err := post(fresh)
				if s == statusCut {
					return fmt.Errorf("cut at the read-header timeout: %w", err)
				}
				if s != 200 {
					if time.Since(start) > fdRecover {
						t.Fatalf("webhook answered %d (%v) %s after the flood ended; the relay did not recover", s, err, time.Since(start).Round(time.Millisecond))
					}
					ok = 0
					return fmt.Errorf("answered %d (%v)", s, err)
				}
				ok++
				return testkit.Check(ok >= 10, "%d in a row", ok)
			})
			recovered := time.Since(start)
			for _, path := range []string{"/healthz", "/readyz"} {
				if status, _ := hostileAdmin(t, p, "", "GET", path, ""); status != 200 {
					t.Errorf("%s answered %d after the flood", path, status)
				}
			}
			if keptStatus[200] == 0 || len(keptStatus) != 1 {
				t.Errorf("the sender on a connection opened before the flood got %v, want only 200s (errors: %q)", keptStatus, postErrs)
			}
			refused := maps.Clone(newStatus)
			delete(refused, 200)
			delete(refused, statusCut)
			if newStatus[200] == 0 || len(refused) > 0 {
				t.Errorf("the sender on new connections got %v, want only 200s and cuts at the read-header timeout (%d) (errors: %q)", newStatus, statusCut, postErrs)
			}
			if peakFDs >= fdLimit {
				t.Errorf("the relay held %d descriptors, its limit is %d", peakFDs, fdLimit)
			}
			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exit code %d after SIGTERM", code)
			}
			acked := int64(1 + keptStatus[200] + newStatus[200] + 10)
			stored := countStored(t, openStore(t, db), "stripe")
			if stored < acked {
				t.Errorf("stored %d events, %d were acknowledged", stored, acked)
			}
			t.Logf("RELIABILITY fd-exhaustion driver=%s nofile=%d idle_conns=%d dial_failed=%d peak_fds=%d kept_conn=%v new_conns=%v recovered_in=%s acknowledged=%d stored=%d",
				driver.Name, fdLimit, fdFlood, dialFailed, peakFDs, keptStatus, newStatus, recovered.Round(time.Millisecond), acked, stored)
		})
	}
}

// floodIdle opens n connections to addr that send nothing, and returns
// those that connected and how many did not.
func floodIdle(addr string, n int) (conns []net.Conn, failed int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			c, err := net.DialTimeout("tcp", addr, 2*time.Second)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed++
				return
			}
			conns = append(conns, c)
		})
	}
	wg.Wait()
	return conns, failed
}

// openFDs returns how many descriptors process pid holds, or 0 when it
// cannot tell.
func openFDs(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0
	}
	return len(ents)
}
