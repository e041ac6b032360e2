package e2e

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Admin listener limits of the held-connections test.
const (
	adminConnCap     = 32
	adminReadTimeout = 2 * time.Second
)

var adminConnConfig = `admin:
  max_connections: 32
  read_header_timeout: 1s
  read_timeout: 2s
` + secConfig

// TestHostileAdminHeldConnections holds admin connections open the ways a
// caller without a token can: a request that declares a body and never
// sends it (without a token, then with one), and connections that send
// nothing. A request without a token is answered 401 and closed before
// its body is read; one with a token is cut at the read timeout; idle ones
// at the header timeout; and the relay never holds more than the cap of
// admin connections at once. The drivers run one after the other: each
// opens hundreds of connections whose cut-off times it bounds.
func TestHostileAdminHeldConnections(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			p := startRelay(t, driver.URL(t), adminConnConfig, stripeEnv)
			base := openFDs(p.Pid())
			head := "POST /api/v1/replay HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\nContent-Length: 100\r\n"
			attacks := []slowAttack{
				{name: "no token, body never sent", conns: 100, head: head + "\r\n{", timeout: 0},
				{name: "wrong token, body never sent", conns: 50, head: head + "Authorization: Bearer nope\r\n\r\n{", timeout: 0},
				{name: "admin token, body never sent", conns: adminConnCap, head: head + "Authorization: Bearer " + secAdmin + "\r\n\r\n{",
					timeout: adminReadTimeout},
				{name: "nothing sent", conns: 200, head: "", timeout: time.Second},
			}
			// The connections beyond the cap wait in the kernel's queue
			// for those ahead of them: a wave per cap's worth.
			waves := func(a slowAttack) time.Duration {
				return time.Duration((a.conns+adminConnCap-1)/adminConnCap) * max(a.timeout, 100*time.Millisecond)
			}
			stop := make(chan struct{})
			var (
				mu   sync.Mutex
				peak int
				wg   sync.WaitGroup
			)
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
					n := openFDs(p.Pid())
					mu.Lock()
					peak = max(peak, n)
					mu.Unlock()
				}
			})
			var summary []string
			for _, a := range attacks {
				results := make([]cutoff, a.conns)
				var conns sync.WaitGroup
				for j := range a.conns {
					conns.Go(func() { results[j] = heldConn(p.admin, a.head, waves(a)+cutSlack+10*time.Second) })
				}
				conns.Wait()
				var worst time.Duration
				seen := map[string]int{}
				for _, c := range results {
					if c.err != nil {
						t.Errorf("%s: %v", a.name, c.err)
						continue
					}
					worst = max(worst, c.after)
					seen[c.status]++
				}
				if bound := waves(a) + cutSlack; worst > bound {
					t.Errorf("%s: the last connection was closed after %s, want within %s", a.name, worst.Round(time.Millisecond), bound)
				}
				if a.timeout == 0 && seen["HTTP/1.1 401 Unauthorized"] != a.conns {
					t.Errorf("%s: answers %v, want %d × 401", a.name, seen, a.conns)
				}
				summary = append(summary, fmt.Sprintf("%s: %d conns, last closed after %s, answers %v",
					a.name, a.conns, worst.Round(time.Millisecond), seen))
			}
			close(stop)
			wg.Wait()
			// Each admin connection holds one descriptor; a few more come
			// and go (the database pool, the genuine calls below).
			if slack := 24; peak > base+adminConnCap+slack {
				t.Errorf("the relay held %d descriptors under the flood, %d before it: more than the cap of %d connections", peak, base, adminConnCap)
			}
			if status, _ := hostileAdmin(t, p, secAdmin, "GET", "/api/v1/stats", ""); status != 200 {
				t.Errorf("stats with a token after the flood: %d", status)
			}
			for _, s := range summary {
				t.Log(s)
			}
			t.Logf("RELIABILITY admin-held-connections driver=%s cap=%d fds_before=%d fds_peak=%d %s",
				driver.Name, adminConnCap, base, peak, strings.Join(summary, "; "))
		})
	}
}

// heldConn sends head and then nothing more, and waits until the relay
// closes the connection, at most limit. It reports the first line of the
// answer, if any.
func heldConn(addr, head string, limit time.Duration) cutoff {
	start := time.Now()
	conn, err := net.DialTimeout("tcp", addr, limit)
	if err != nil {
		return cutoff{err: fmt.Errorf("dial: %w", err)}
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(head)); err != nil {
		return cutoff{err: fmt.Errorf("write head: %w", err)}
	}
	_ = conn.SetReadDeadline(start.Add(limit))
	var got []byte
	buf := make([]byte, 4096)
	for {
		n, err := conn.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			if isTimeout(err) {
				return cutoff{err: fmt.Errorf("still open after %s", limit)}
			}
			line, _, _ := strings.Cut(string(got), "\r\n")
			return cutoff{after: time.Since(start), status: line}
		}
	}
}
