package receiver

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// errShed reports a body cut off because its peer had as many bodies
// arriving as it may, and it was the slowest of them: it is answered 503
// with Retry-After, like the other refusals for load.
var errShed = fmt.Errorf("shed as its peer's slowest body: %w", errOverloaded)

// peerTable bounds the bodies each peer address may have arriving at once
// before they take from the body budget (their first freeBody bytes).
// A request whose peer is at the bound sheds that peer's slowest body (the
// fewest bytes a second since its request began; answered 503 with
// Retry-After) instead of being refused:
// a genuine webhook's body arrives in a moment, so a flood of slow uploads
// from one address loses its own oldest trickles, not the genuine requests
// that share the address (a proxy's, or a provider's egress).
type peerTable struct {
	max    int
	logger *slog.Logger
	logs   *rate.Limiter

	mu     sync.Mutex
	unread map[string][]*pacedBody // guarded by mu
}

func newPeerTable(max int, logger *slog.Logger) *peerTable {
	return &peerTable{max: max, logger: logger.With("component", "ingest_limits"),
		logs: rate.NewLimiter(rate.Every(10*time.Second), 1), unread: make(map[string][]*pacedBody)}
}

// peerOf returns the address r came from, without its port.
func peerOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// enter records that peer is sending body b, shedding the peer's slowest
// body first when it is at the bound. The returned leave must be called
// once, when b no longer counts (its first bytes have arrived, or it has
// been read, error or not); b is never shed after it.
func (t *peerTable) enter(peer string, b *pacedBody, now time.Time) (leave func()) {
	t.mu.Lock()
	bodies := t.unread[peer]
	if len(bodies) >= t.max {
		i := slowest(bodies, now)
		bodies[i].cut()
		bodies = append(bodies[:i], bodies[i+1:]...)
		if t.logs.Allow() {
			t.logger.Warn("a peer is sending as many bodies as it may: shedding its slowest",
				"peer", peer, "max_unread_per_peer", t.max)
		}
	}
	t.unread[peer] = append(bodies, b)
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		bodies := t.unread[peer]
		for i, o := range bodies {
			if o == b {
				bodies = append(bodies[:i], bodies[i+1:]...)
				break
			}
		}
		if len(bodies) == 0 {
			delete(t.unread, peer)
			return
		}
		t.unread[peer] = bodies
	}
}

// slowest returns the index of the body that has arrived at the lowest
// rate so far. A request counts as at least a millisecond old, so that one
// that has just begun is not judged by its first instant.
func slowest(bodies []*pacedBody, now time.Time) int {
	worst, worstRate := 0, 0.0
	for i, b := range bodies {
		age := max(now.Sub(b.start), time.Millisecond).Seconds()
		r := float64(b.n.Load()+1) / age
		if i == 0 || r < worstRate {
			worst, worstRate = i, r
		}
	}
	return worst
}
