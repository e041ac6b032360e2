package receiver_test

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// openTrickle connects to the receiver at url, sends the head of a stripe
// post that declares a 1 000-byte body and its first ten bytes, and leaves
// the rest unsent. It returns the connection and a channel that gets the
// receiver's status line (or the read error) when it answers.
func openTrickle(t *testing.T, url string) (net.Conn, <-chan string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := "POST /webhooks/stripe HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\n" +
		"Stripe-Signature: t=1,v1=00\r\nContent-Length: 1000\r\n\r\n" + strings.Repeat("{", 10)
	if _, err := conn.Write([]byte(head)); err != nil {
		t.Fatal(err)
	}
	answered := make(chan string, 1)
	go func() {
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil {
			line = "closed: " + err.Error()
		}
		answered <- strings.TrimSpace(line)
	}()
	return conn, answered
}

// TestTricklingBodiesHoldNoSlot: bodies that arrive slowly hold none of the
// concurrency slots, which are taken only once a body has been read, so a
// genuine request beside more trickles than there are slots is stored.
func TestTricklingBodiesHoldNoSlot(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, driver, setupOptions{maxConcurrency: 2})
			for range 8 {
				openTrickle(t, b.url)
			}
			waitInflight(t, b.registry, 8) // every trickle's head is being handled
			for i := range 5 {
				resp, text := do(t, signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, stripeBody(fmt.Sprintf("evt_trickle_%d", i), "invoice.paid"), time.Now()))
				if resp.StatusCode != 200 {
					t.Fatalf("genuine request %d beside 8 trickles and 2 slots: status %d (%s), want 200", i, resp.StatusCode, text)
				}
			}
		})
	}
}

// TestPeerSlowestBodyIsShed: when one peer address is sending as many
// bodies as it may, its next request sheds the slowest of them, answered
// 503 with Retry-After, instead of being refused.
func TestPeerSlowestBodyIsShed(t *testing.T) {
	t.Parallel()
	for _, driver := range testdb.Drivers() {
		t.Run(driver.Name, func(t *testing.T) {
			t.Parallel()
			clock := &testClock{at: time.Now()}
			b := setup(t, driver, setupOptions{maxUnreadPerPeer: 2, now: clock.now})
			_, oldest := openTrickle(t, b.url)
			waitInflight(t, b.registry, 1)
			clock.advance(200 * time.Millisecond) // the oldest has the lowest rate
			_, other := openTrickle(t, b.url)
			waitInflight(t, b.registry, 2)
			clock.advance(100 * time.Millisecond)
			resp, text := do(t, signedStripe(t, b.url+"/webhooks/stripe", stripeSecret, stripeBody("evt_beside_trickles", "invoice.paid"), time.Now()))
			if resp.StatusCode != 200 {
				t.Fatalf("genuine request beside its peer's 2 trickles: status %d (%s), want 200", resp.StatusCode, text)
			}
			select {
			case line := <-oldest:
				if !strings.Contains(line, "503") {
					t.Errorf("the slowest trickle was answered %q, want 503", line)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("the slowest trickle was not shed")
			}
			select {
			case line := <-other:
				t.Errorf("the other trickle was answered %q, want it still open", line)
			default:
			}
		})
	}
}

// testClock is a receiver's clock that moves only when the test says.
type testClock struct {
	mu sync.Mutex
	at time.Time // guarded by mu
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = c.at.Add(d)
}
