package e2e

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testdb"
)

// The slow-upload test: more clients than the default body budget (64 MiB)
// has room for at the default max_body (1 MiB), each declaring a full body
// and sending a byte now and then.
const (
	slowUploads      = 80
	slowUploadEvery  = 250 * time.Millisecond
	slowUploadFor    = 7 * time.Second
	slowUploadLength = 1 << 20
)

// TestHostileSlowUploadsDoNotStarve holds 80 uploads that each declare a
// 1 MiB body and trickle it, more than the default 64 MiB budget could
// hold if each reserved its declared length, while a genuine provider
// sends signed events: every genuine event is answered 200 promptly and
// stored, because a request holds only the memory its body has used.
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
				wg      sync.WaitGroup
				mu      sync.Mutex
				sent    int64
				dropped int
			)
			for range slowUploads {
				wg.Go(func() {
					n, err := trickle(p.public, head, stop)
					mu.Lock()
					defer mu.Unlock()
					sent += n
					if err != nil {
						dropped++
					}
				})
			}
			time.Sleep(time.Second) // every slow upload has begun
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
				time.Sleep(50 * time.Millisecond)
			}
			close(stop)
			wg.Wait()

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
			t.Logf("RELIABILITY slow-uploads driver=%s slow_uploads=%d declared=%d each slow_bytes_sent=%d cut_early=%d genuine_sent=%d acknowledged=%d stored=%d genuine_p50=%s genuine_max=%s",
				driver.Name, slowUploads, slowUploadLength, sent, dropped, len(lat), statuses[200], stored, p50.Round(time.Millisecond), worst.Round(time.Millisecond))
		})
	}
}

// trickle sends head, then a byte every slowUploadEvery until stop is
// closed or the relay closes the connection; it returns the body bytes
// sent and the error that ended it early, if any.
func trickle(addr, head string, stop <-chan struct{}) (int64, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(head)); err != nil {
		return 0, err
	}
	var sent int64
	for {
		select {
		case <-stop:
			return sent, nil
		case <-time.After(slowUploadEvery):
		}
		_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := conn.Write([]byte("{")); err != nil {
			return sent, err
		}
		sent++
	}
}
