package receiver

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

// errUploadTooSlow reports a body that arrived slower than the minimum
// upload rate, or not within the read timeout.
var errUploadTooSlow = errors.New("body arrived too slowly")

// DefaultUploadGrace is how long a body may take before the minimum upload
// rate applies: a body must have arrived at that rate on average, counted
// from the end of this grace. It is long enough for a sender starved of CPU
// for a moment, and a third of the default read timeout.
const DefaultUploadGrace = 10 * time.Second

// minReadWait is the least time any read is given: a relay too busy to
// read on time must not cut off a body whose bytes are already waiting.
const minReadWait = 100 * time.Millisecond

// pacedBody reads a request body within its deadlines, counts the bytes
// read, and can be cut off by another request (see peerTable). When a
// minimum upload rate is set, before each read it moves the connection's
// read deadline to the time by which the bytes read so far plus one would
// have arrived at the floor: start + grace + n/rate (at least minReadWait
// from now), and never past the read timeout. A client that trickles, or
// stops, meets the deadline, and its read fails.
type pacedBody struct {
	body  io.ReadCloser
	ctl   *http.ResponseController
	start time.Time
	rate  int64     // bytes a second; 0: no floor
	limit time.Time // the read timeout's deadline; zero: none
	grace time.Duration
	n     atomic.Int64 // bytes read so far
	shed  atomic.Bool  // cut off as its peer's slowest body
}

// pace wraps r's body in its deadlines. The returned done must be called
// once the body has been read, with the read's error: it gives r its own
// body back (the server looks at its type when it decides what to do with
// an unread rest) and, when the body arrived whole, lifts the rate's
// deadline, leaving the read timeout's. After a failed read the passed
// deadline stays, so that the server reads nothing more from the
// connection and closes it.
func (rc *Receiver) pace(w http.ResponseWriter, r *http.Request, start time.Time) (p *pacedBody, done func(err error)) {
	var limit time.Time
	if rc.readTimeout > 0 {
		limit = start.Add(rc.readTimeout)
	}
	p = &pacedBody{body: r.Body, ctl: http.NewResponseController(w), start: start,
		rate: rc.minUploadRate, limit: limit, grace: rc.uploadGrace}
	r.Body = p
	return p, func(err error) {
		r.Body = p.body
		if err == nil && rc.minUploadRate > 0 {
			_ = p.ctl.SetReadDeadline(limit)
		}
	}
}

// Read reads from the body within the deadline of its next byte. It sets
// the deadline before it looks whether the body was cut off, so that a cut
// made meanwhile is never undone by the deadline it sets.
func (p *pacedBody) Read(b []byte) (int, error) {
	if p.rate > 0 {
		n := p.n.Load()
		due := p.start.Add(p.grace + time.Duration(float64(n+1)/float64(p.rate)*float64(time.Second)))
		due = later(due, time.Now().Add(minReadWait))
		if !p.limit.IsZero() && due.After(p.limit) {
			due = p.limit
		}
		if err := p.ctl.SetReadDeadline(due); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return 0, fmt.Errorf("set read deadline: %w", err)
		}
	}
	if p.shed.Load() {
		return 0, errShed
	}
	n, err := p.body.Read(b)
	read := p.n.Add(int64(n))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if p.shed.Load() {
			return n, errShed
		}
		return n, fmt.Errorf("read %d bytes in %s: %w", read, time.Since(p.start).Round(time.Millisecond), errUploadTooSlow)
	}
	return n, err
}

// cut ends the body's read at once: the read under way, if any, fails, and
// so does every later one.
func (p *pacedBody) cut() {
	p.shed.Store(true)
	_ = p.ctl.SetReadDeadline(time.Now())
}

// Close closes the body.
func (p *pacedBody) Close() error { return p.body.Close() }

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
