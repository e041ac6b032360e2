package receiver_test

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/testdb"
)

// TestSlowUploadIs408 declares a body and sends a byte a second, far below
// the floor: once the grace has passed the upload is cut off with 408.
func TestSlowUploadIs408(t *testing.T) {
	t.Parallel()
	driver := testdb.Drivers()[0]
	const grace = 2 * time.Second
	b := setup(t, driver, setupOptions{minUploadRate: 1024, uploadGrace: grace})
	conn, err := net.Dial("tcp", strings.TrimPrefix(b.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /webhooks/stripe HTTP/1.1\r\nHost: relay\r\nStripe-Signature: t=1,v1=00\r\nContent-Length: 2000\r\n\r\n")
	answered := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(conn).ReadString('\n')
		answered <- strings.TrimSpace(line)
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case line := <-answered:
			took := time.Since(start)
			if line != "HTTP/1.1 408 Request Timeout" {
				t.Fatalf("answer %q, want 408", line)
			}
			if took < grace || took > grace+3*time.Second {
				t.Errorf("cut off after %s, want just after the %s grace", took, grace)
			}
			return
		case <-tick.C:
			if time.Since(start) > 15*time.Second {
				t.Fatal("not cut off after 15 s")
			}
			_, _ = conn.Write([]byte("{"))
		}
	}
}
