package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/loadgen"
)

// Paths of the deliver benchmark's no-op destination: the relay pushes to
// hooksPath (and, with several destinations, paths under it), the plain
// client posts to plainPath. Both do the same work; only the first is
// counted.
const (
	hooksPath = "/hooks"
	plainPath = "/plain"
)

// noopDestination is the push destination of the deliver benchmark, served
// in the benchmark's own process on 127.0.0.1: it reads each body and
// answers 200. It counts the relay's deliveries, notes when the first one
// arrived, and, while recording, when each event arrived.
type noopDestination struct {
	url string // base URL, no path
	srv *http.Server

	received  atomic.Int64
	first     atomic.Int64 // UnixNano of the first delivery; 0 before it
	recording atomic.Bool

	mu       sync.Mutex           // guards arrivals
	arrivals map[string]time.Time // by provider event id, while recording
}

// startNoopDestination serves a noopDestination on a free loopback port.
func startNoopDestination() (*noopDestination, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the destination: %w", err)
	}
	d := &noopDestination{url: "http://" + ln.Addr().String(), arrivals: map[string]time.Time{}}
	d.srv = &http.Server{Handler: d, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = d.srv.Serve(ln) }()
	return d, nil
}

func (d *noopDestination) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if r.URL.Path == hooksPath || strings.HasPrefix(r.URL.Path, hooksPath+"/") {
		d.received.Add(1)
		d.first.CompareAndSwap(0, at.UnixNano())
		if d.recording.Load() {
			d.mu.Lock()
			d.arrivals[r.Header.Get("Hookrelay-Event-Id")] = at
			d.mu.Unlock()
		}
	}
	w.WriteHeader(http.StatusOK)
}

// reset forgets every count before a new relay delivers here.
func (d *noopDestination) reset() {
	d.received.Store(0)
	d.first.Store(0)
	d.recording.Store(false)
	d.mu.Lock()
	clear(d.arrivals)
	d.mu.Unlock()
}

// firstDelivery returns when the first delivery arrived since the last
// reset, and false when none has.
func (d *noopDestination) firstDelivery() (time.Time, bool) {
	ns := d.first.Load()
	return time.Unix(0, ns), ns != 0
}

// arrival returns when the event with the provider id arrived while
// recording.
func (d *noopDestination) arrival(providerID string) (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	at, ok := d.arrivals[providerID]
	return at, ok
}

func (d *noopDestination) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = d.srv.Shutdown(ctx)
}

// bodyFeed makes the deliver benchmark's event bodies: Stripe-shaped JSON
// of a fixed size whose id is "evt_prep_" and 20 digits of its index. The
// relay delivers body i as stored; the plain client posts the same body i,
// unsigned, with its Content-Type.
type bodyFeed struct {
	template []byte
	idAt     int
	header   http.Header
}

const (
	prepIDPrefix = "evt_prep_"
	prepDigits   = 20
)

// newBodyFeed returns a feed of size-byte bodies, or of the smallest body
// that holds the fields when size is smaller.
func newBodyFeed(size int) *bodyFeed {
	head := `{"id":"` + prepIDPrefix
	id := strings.Repeat("0", prepDigits)
	tail := `","object":"event","type":"invoice.paid","created":1700000000,"data":{"object":{"pad":"`
	end := `"}}}`
	pad := max(0, size-len(head)-len(id)-len(tail)-len(end))
	body := head + id + tail + strings.Repeat("x", pad) + end
	return &bodyFeed{
		template: []byte(body),
		idAt:     len(head),
		header:   http.Header{"Content-Type": {"application/json"}},
	}
}

// body returns body i in a new slice.
func (f *bodyFeed) body(i int64) []byte {
	b := append([]byte(nil), f.template...)
	digits := b[f.idAt : f.idAt+prepDigits]
	for j := len(digits) - 1; j >= 0; j-- {
		digits[j] = '0' + byte(i%10)
		i /= 10
	}
	return b
}

// providerID is the id inside body i.
func (f *bodyFeed) providerID(i int64) string {
	return fmt.Sprintf("%s%0*d", prepIDPrefix, prepDigits, i)
}

// Stream makes bodyFeed a loadgen.Feed for the plain client; the feed
// keeps no state, so one value serves every sender.
func (f *bodyFeed) Stream() loadgen.Stream { return f }

// Request is body i with its Content-Type; the header map is shared and
// never written.
func (f *bodyFeed) Request(i int64) loadgen.Request {
	return loadgen.Request{Body: f.body(i), Header: f.header}
}
