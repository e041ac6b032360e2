package providersim

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
)

// Headers a destination reads from each delivery.
const (
	headerWebhookID = "Webhook-Id"
	headerEventID   = "Hookrelay-Event-Id"
	headerAttempt   = "Hookrelay-Attempt"
)

// DestinationOptions configure a Destination. Secret is required.
type DestinationOptions struct {
	// Addr is where it listens; default "127.0.0.1:0", a free port that
	// then stays the same through Down and Up.
	Addr string
	// Secret is the destination's whsec_ secret, which the relay signs
	// deliveries with.
	Secret string
	// Delay holds each answer back, so that deliveries are in flight long
	// enough for a crash to catch some of them.
	Delay time.Duration
}

// Delivery is one request the destination received.
type Delivery struct {
	At time.Time
	// WebhookID is the relay's event id, the same at every attempt.
	WebhookID string
	// ProviderEventID is the provider's id, from hookrelay-event-id.
	ProviderEventID string
	// Attempt is the relay's attempt number, from hookrelay-attempt.
	Attempt int
	// Valid tells whether the Standard Webhooks signature verified; Err
	// says why not.
	Valid bool
	Err   string
}

// Destination is an HTTP endpoint that verifies each delivery's Standard
// Webhooks signature over the raw body and records it. Valid deliveries
// are answered 200, invalid ones 400. It can be taken down, refusing
// connections, and brought back on the same address.
type Destination struct {
	addr   string
	scheme signature.Scheme
	delay  time.Duration

	mu         sync.Mutex
	srv        *http.Server // nil while down; guarded by mu
	deliveries []Delivery   // guarded by mu
	counts     map[string]int
	invalid    int
}

// NewDestination starts a destination.
func NewDestination(o DestinationOptions) (*Destination, error) {
	if o.Secret == "" {
		return nil, errors.New("providersim: destination secret is required")
	}
	scheme, err := signature.New(signature.Options{Scheme: "standard", Secrets: []string{o.Secret}})
	if err != nil {
		return nil, fmt.Errorf("new destination: %w", err)
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	d := &Destination{addr: o.Addr, scheme: scheme, delay: o.Delay, counts: map[string]int{}}
	if err := d.Up(); err != nil {
		return nil, err
	}
	return d, nil
}

// URL is where the relay should push deliveries.
func (d *Destination) URL() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return "http://" + d.addr + "/hook"
}

// Up listens again, on the address it had. It is a no-op while up.
func (d *Destination) Up() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.srv != nil {
		return nil
	}
	ln, err := net.Listen("tcp", d.addr)
	if err != nil {
		return fmt.Errorf("destination listen %s: %w", d.addr, err)
	}
	d.addr = ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(d.serve), ReadHeaderTimeout: 10 * time.Second}
	d.srv = srv
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// Down closes the listener and every open connection: until Up, the relay's
// connections are refused.
func (d *Destination) Down() {
	d.mu.Lock()
	srv := d.srv
	d.srv = nil
	d.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// Close takes the destination down for good.
func (d *Destination) Close() { d.Down() }

func (d *Destination) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	now := time.Now()
	del := Delivery{
		At:              now,
		WebhookID:       r.Header.Get(headerWebhookID),
		ProviderEventID: r.Header.Get(headerEventID),
	}
	del.Attempt, _ = strconv.Atoi(r.Header.Get(headerAttempt))
	if _, err := d.scheme.Verify(signature.Request{Header: r.Header, Body: body, Now: now}); err != nil {
		del.Err = err.Error()
	} else {
		del.Valid = true
	}
	if d.delay > 0 {
		time.Sleep(d.delay)
	}
	d.mu.Lock()
	d.deliveries = append(d.deliveries, del)
	if del.Valid {
		d.counts[del.WebhookID]++
	} else {
		d.invalid++
	}
	d.mu.Unlock()
	if !del.Valid {
		http.Error(w, "invalid signature", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// Counts returns, for each webhook-id received with a valid signature, how
// many times it was received.
func (d *Destination) Counts() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := make(map[string]int, len(d.counts))
	for k, v := range d.counts {
		m[k] = v
	}
	return m
}

// Received counts the distinct events received with a valid signature.
func (d *Destination) Received() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.counts)
}

// Invalid counts the deliveries whose signature did not verify.
func (d *Destination) Invalid() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.invalid
}

// Deliveries returns every request received, in order.
func (d *Destination) Deliveries() []Delivery {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Delivery(nil), d.deliveries...)
}
