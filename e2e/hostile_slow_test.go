package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// Short ingest limits for the slow-client test, so that the relay's
// cut-offs come within seconds.
const (
	slowHeaderTimeout = time.Second
	slowReadTimeout   = 3 * time.Second
	slowMaxBody       = 64 << 10
	// cutSlack is how late after its timeout a connection may still be
	// open: the relay's own scheduling plus the client noticing.
	cutSlack = 3 * time.Second
	// genuineBound is how long a genuine request may take while the
	// relay is under attack: generous, for CI machines under load (a
	// request took 3.3 s once there), and still well short of the attacks'
	// cuts (10 s and more) that a starved request would wait for.
	genuineBound = 5 * time.Second
)

const slowConfig = `ingest:
  read_header_timeout: 1s
  read_timeout: 3s
sources:
  - name: stripe
    verify: stripe
    secrets: ["${E2E_STRIPE_SECRET}"]
    max_body: 64KiB
`

// slowAttack is one kind of hostile connection: what it sends first, then
// what it feeds every interval until the relay cuts it off.
type slowAttack struct {
	name    string
	conns   int
	head    string
	feed    []byte
	every   time.Duration // 0: as fast as the relay reads
	timeout time.Duration // the relay limit that must cut it off
}

// cutoff is how one hostile connection ended.
type cutoff struct {
	after  time.Duration // from the first byte until the relay closed it
	status string        // the status line the relay sent, if any
	sent   int64
	err    error // non-nil when the relay never cut it off
}

// TestHostileSlowClients runs slow-loris clients (headers a byte at a
// time), bodies that trickle, and a chunked body that never ends, against
// a relay with short timeouts. Each must be cut off within its timeout,
// while a genuine sender keeps getting 200s promptly.
func TestHostileSlowClients(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			p := startRelay(t, db, slowConfig, stripeEnv)
			head := "POST /webhooks/stripe HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\n"
			chunk := fmt.Appendf(nil, "1000\r\n%s\r\n", strings.Repeat("x", 0x1000))
			attacks := []slowAttack{
				{name: "headers a byte at a time", conns: 50, head: head + "X-Slow: ", feed: []byte("a"),
					every: 100 * time.Millisecond, timeout: slowHeaderTimeout},
				{name: "declared body a byte at a time", conns: 10, head: head + "Stripe-Signature: t=1,v1=00\r\nContent-Length: 1000\r\n\r\n",
					feed: []byte("{"), every: 100 * time.Millisecond, timeout: slowReadTimeout},
				{name: "declared body over max_body, sent slowly", conns: 10, head: head + "Content-Length: 100000000\r\n\r\n",
					feed: []byte("{"), every: 100 * time.Millisecond, timeout: slowReadTimeout},
				{name: "chunked body a byte at a time", conns: 10, head: head + "Transfer-Encoding: chunked\r\n\r\n",
					feed: []byte("1\r\na\r\n"), every: 100 * time.Millisecond, timeout: slowReadTimeout},
				{name: "chunked body that never ends", conns: 10, head: head + "Transfer-Encoding: chunked\r\n\r\n",
					feed: chunk, timeout: slowReadTimeout},
			}

			stopGenuine := make(chan struct{})
			genuineDone := make(chan struct{})
			var (
				lat      latencies
				statuses = map[int]int{}
				answered atomic.Int64 // genuine requests answered so far
			)
			go func() {
				defer close(genuineDone)
				client := &http.Client{Timeout: 10 * time.Second}
				for i := 0; ; i++ {
					select {
					case <-stopGenuine:
						return
					case <-time.After(50 * time.Millisecond):
					}
					req := hostileStripe(t, p, stripeEvent(fmt.Sprintf("evt_slow_genuine_%d", i), ""), nil)
					start := time.Now()
					status, _, _, err := hostileDo(client, req)
					lat = append(lat, time.Since(start))
					if err != nil {
						status = -1
						t.Logf("genuine request %d: %v", i, err)
					}
					statuses[status]++
					answered.Add(1)
				}
			}()

			results := make([][]cutoff, len(attacks))
			var wg sync.WaitGroup
			for i, a := range attacks {
				results[i] = make([]cutoff, a.conns)
				for j := range a.conns {
					wg.Go(func() { results[i][j] = slowConn(p.public, a, a.timeout+15*time.Second) })
				}
			}
			wg.Wait()
			// Keep the genuine sender going a little past the last cut.
			n := answered.Load()
			testkit.Eventually(t, 10*time.Second, "genuine requests after the last cut", func() error {
				return testkit.Check(answered.Load() >= n+3, "%d answered since", answered.Load()-n)
			})
			close(stopGenuine)
			<-genuineDone

			var summary []string
			hostile := 0
			for i, a := range attacks {
				hostile += a.conns
				var worst time.Duration
				var sent int64
				seen := map[string]int{}
				for _, c := range results[i] {
					if c.err != nil {
						t.Errorf("%s: %v", a.name, c.err)
						continue
					}
					if c.after > a.timeout+cutSlack {
						t.Errorf("%s: cut off after %s, want within %s of its %s timeout", a.name, c.after.Round(time.Millisecond), cutSlack, a.timeout)
					}
					worst, sent = max(worst, c.after), sent+c.sent
					seen[c.status]++
				}
				summary = append(summary, fmt.Sprintf("%s: %d conns cut within %s (limit %s), %d bytes sent, answers %v",
					a.name, a.conns, worst.Round(time.Millisecond), a.timeout, sent, seen))
			}
			p50, worst := lat.summary()
			if statuses[200] != len(lat) || len(lat) == 0 {
				t.Errorf("genuine sender got %v, want only 200s", statuses)
			}
			if worst > genuineBound {
				t.Errorf("a genuine request took %s during the attack, want under %s", worst, genuineBound)
			}
			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exit code %d after SIGTERM", code)
			}
			stored := countStored(t, openStore(t, db), "stripe")
			if stored != int64(statuses[200]) {
				t.Errorf("stored %d events, want the %d genuine ones", stored, statuses[200])
			}
			for _, s := range summary {
				t.Log(s)
			}
			t.Logf("RELIABILITY slow-clients driver=%s hostile_conns=%d genuine_sent=%d acknowledged=%d stored=%d genuine_p50=%s genuine_max=%s lost=%d",
				driver.Name, hostile, len(lat), statuses[200], stored, p50.Round(time.Millisecond), worst.Round(time.Millisecond), int64(statuses[200])-stored)
		})
	}
}

// slowConn runs one hostile connection until the relay closes it or limit
// passes.
func slowConn(addr string, a slowAttack, limit time.Duration) cutoff {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return cutoff{err: fmt.Errorf("dial: %w", err)}
	}
	defer conn.Close()
	start := time.Now()
	type end struct {
		status string
		at     time.Time
	}
	closed := make(chan end, 1)
	go func() {
		br := bufio.NewReader(conn)
		line, _ := br.ReadString('\n')
		_, _ = io.Copy(io.Discard, br)
		closed <- end{strings.TrimSpace(line), time.Now()}
	}()
	c := cutoff{}
	if _, err := io.WriteString(conn, a.head); err != nil {
		return cutoff{err: fmt.Errorf("write head: %w", err)}
	}
	deadline := start.Add(limit)
	for {
		select {
		case e := <-closed:
			c.after, c.status = e.at.Sub(start), e.status
			return c
		default:
		}
		if time.Now().After(deadline) {
			c.err = fmt.Errorf("still open after %s (%d bytes sent)", limit, c.sent)
			return c
		}
		_ = conn.SetWriteDeadline(time.Now().Add(500 * time.Millisecond))
		n, err := conn.Write(a.feed)
		c.sent += int64(n)
		if err != nil && !isTimeout(err) {
			// The relay closed the connection; the reader says when.
			select {
			case e := <-closed:
				c.after, c.status = e.at.Sub(start), e.status
			case <-time.After(2 * time.Second):
				c.after, c.status = time.Since(start), "write failed: "+err.Error()
			}
			return c
		}
		if a.every > 0 {
			time.Sleep(a.every) // the attack's own pace
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
