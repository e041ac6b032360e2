package e2e

import (
	"bufio"
	"fmt"
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

// The slow-upload test: more clients than the default body budget (64 MiB)
// has room for at the default max_body (1 MiB), each declaring a full body
// and sending a byte now and then, and connecting again when cut off.
const (
	slowUploads      = 80
	slowUploadEvery  = 250 * time.Millisecond
	slowUploadFor    = 12 * time.Second
	slowUploadLength = 1 << 20
	// slowUploadCut is when the default minimum upload rate (1 KiB/s after
	// a 10 s grace) cuts a trickle of 4 bytes a second: at the grace.
	slowUploadCut = 10 * time.Second
)

// TestHostileSlowUploadsDoNotStarve holds 80 uploads that each declare a
// 1 MiB body and trickle it, more than the default 64 MiB budget could
// hold if each reserved its declared length, while a genuine provider
// sends signed events: every genuine event is answered 200 promptly and
// stored, because a request holds only the memory its body has used. The
// minimum upload rate cuts each trickle off with 408 once its grace has
// passed (not at the 30 s read timeout), and the uploads that connect again
// fare no better.
func TestHostileSlowUploadsDoNotStarve(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			db := driver.URL(t)
			p := startRelay(t, db, stripeSource, stripeEnv)
			head := fmt.Sprintf("POST /webhooks/stripe HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\n"+
				"Stripe-Signature: t=1,v1=00\r\nContent-Length: %d\r\n\r\n", slowUploadLength)

			stop := make(chan struct{})
			var (
				wg    sync.WaitGroup
				mu    sync.Mutex
				sent  int64
				cuts  []trickleCut
				begun atomic.Int64
			)
			for range slowUploads {
				wg.Go(func() {
					for first := true; ; first = false {
						c := trickle(p.public, head, stop, func() {
							if first {
								begun.Add(1)
							}
						})
						mu.Lock()
						sent += c.sent
						if !c.stopped {
							cuts = append(cuts, c)
						}
						mu.Unlock()
						if c.stopped {
							return
						}
					}
				})
			}
			testkit.Eventually(t, 30*time.Second, "every slow upload begun", func() error {
				return testkit.Check(begun.Load() == slowUploads, "%d of %d begun", begun.Load(), slowUploads)
			})
			var (
				lat      latencies
				statuses = map[int]int{}
			)
			client := &http.Client{Timeout: 15 * time.Second}
			until := time.Now().Add(slowUploadFor)
			for i := 0; time.Now().Before(until); i++ {
				req := hostileStripe(t, p, stripeEvent(fmt.Sprintf("evt_budget_%d", i), `"pad":"`+strings.Repeat("x", 2048)+`"`), nil)
				start := time.Now()
				status, _, _, err := hostileDo(client, req)
				lat = append(lat, time.Since(start))
				if err != nil {
					status = -1
				}
				statuses[status]++
				time.Sleep(50 * time.Millisecond) // paces the genuine sender across the slow uploads' cut
			}
			close(stop)
			wg.Wait()

			cutStatus := map[string]int{}
			var cutMin, cutMax time.Duration
			for i, c := range cuts {
				cutStatus[c.status]++
				if i == 0 || c.after < cutMin {
					cutMin = c.after
				}
				cutMax = max(cutMax, c.after)
			}
			if len(cuts) < slowUploads || cutStatus["HTTP/1.1 408 Request Timeout"] != len(cuts) {
				t.Errorf("slow uploads cut off %d times with %v, want every one of %d at least once, each with 408", len(cuts), cutStatus, slowUploads)
			}
			if cutMin < slowUploadCut-time.Second || cutMax > slowUploadCut+cutSlack {
				t.Errorf("slow uploads cut off after %s to %s, want about %s", cutMin, cutMax, slowUploadCut)
			}

			p50, worst := lat.summary()
			if statuses[200] != len(lat) {
				t.Errorf("genuine sender got %v during the slow uploads, want only 200s", statuses)
			}
			if worst > genuineBound {
				t.Errorf("a genuine request took %s during the slow uploads, want under %s", worst, genuineBound)
			}
			if code := p.stop(t); code != 0 {
				t.Fatalf("relay exit code %d after SIGTERM", code)
			}
			stored := countStored(t, openStore(t, db), "stripe")
			if stored != int64(statuses[200]) {
				t.Errorf("stored %d events, want the %d acknowledged", stored, statuses[200])
			}
			t.Logf("RELIABILITY slow-uploads driver=%s slow_uploads=%d declared=%d each slow_bytes_sent=%d cut=%d answers=%v cut_after=%s..%s genuine_sent=%d acknowledged=%d stored=%d genuine_p50=%s genuine_max=%s",
				driver.Name, slowUploads, slowUploadLength, sent, len(cuts), cutStatus, cutMin.Round(time.Millisecond), cutMax.Round(time.Millisecond),
				len(lat), statuses[200], stored, p50.Round(time.Millisecond), worst.Round(time.Millisecond))
		})
	}
}

// trickleCut is how one slow upload ended.
type trickleCut struct {
	sent    int64
	stopped bool          // the test stopped it; the relay never cut it off
	after   time.Duration // from the head until the relay's answer or close
	status  string        // the relay's status line, if it sent one
}

// trickle sends head, then a byte every slowUploadEvery until stop is
// closed or the relay answers or closes the connection. begun, when not
// nil, is called once the head is sent.
func trickle(addr, head string, stop <-chan struct{}, begun func()) trickleCut {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return trickleCut{status: "dial: " + err.Error()}
	}
	defer conn.Close()
	start := time.Now()
	answered := make(chan string, 1)
	go func() {
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil && line == "" {
			line = "closed: " + err.Error()
		}
		answered <- strings.TrimSpace(line)
	}()
	if _, err := conn.Write([]byte(head)); err != nil {
		return trickleCut{status: "write head: " + err.Error()}
	}
	if begun != nil {
		begun()
	}
	c := trickleCut{}
	for {
		select {
		case <-stop:
			c.stopped = true
			return c
		case line := <-answered:
			c.after, c.status = time.Since(start), line
			return c
		case <-time.After(slowUploadEvery):
		}
		// A byte into a socket whose buffer holds a few dozen cannot
		// block: the deadline only keeps a broken test from hanging. A
		// short one failed writes that this busy process had merely
		// scheduled late, and read as the relay cutting the upload.
		_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write([]byte("{")); err != nil {
			select {
			case line := <-answered:
				c.after, c.status = time.Since(start), line
			case <-time.After(5 * time.Second):
				c.after, c.status = time.Since(start), "write: "+err.Error()
			}
			return c
		}
		c.sent++
	}
}
