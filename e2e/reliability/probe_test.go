package reliability

import (
	"net/http"
	"sync"
	"time"
)

// probe is one /readyz answer.
type probe struct {
	sent, answered time.Time
	status         int // 0 when there was no answer
}

// readyzProbe polls a relay's /readyz in the background and keeps every
// answer.
type readyzProbe struct {
	stopOnce sync.Once
	stopCh   chan struct{}
	done     chan struct{}

	mu     sync.Mutex
	probes []probe // guarded by mu
}

// startReadyzProbe polls admin's /readyz every interval until stop.
func startReadyzProbe(admin string, interval time.Duration) *readyzProbe {
	r := &readyzProbe{stopCh: make(chan struct{}), done: make(chan struct{})}
	client := &http.Client{Timeout: 3 * time.Second}
	go func() {
		defer close(r.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			pr := probe{sent: time.Now()}
			pr.status = readyz(client, admin)
			pr.answered = time.Now()
			r.mu.Lock()
			r.probes = append(r.probes, pr)
			r.mu.Unlock()
			select {
			case <-r.stopCh:
				return
			case <-t.C:
			}
		}
	}()
	return r
}

// stop ends the polling and waits for the last probe.
func (r *readyzProbe) stop() {
	r.stopOnce.Do(func() { close(r.stopCh) })
	<-r.done
}

// within counts by status the answers to probes sent at or after from and
// answered before to.
func (r *readyzProbe) within(from, to time.Time) map[int]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := map[int]int{}
	for _, p := range r.probes {
		if !p.sent.Before(from) && p.answered.Before(to) {
			m[p.status]++
		}
	}
	return m
}

// firstAfter returns when the first probe sent at or after from was
// answered with status, and whether there was one.
func (r *readyzProbe) firstAfter(from time.Time, status int) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.probes {
		if !p.sent.Before(from) && p.status == status {
			return p.answered, true
		}
	}
	return time.Time{}, false
}
