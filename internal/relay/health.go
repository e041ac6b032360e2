package relay

import (
	"sync"
	"time"
)

// failingFor is how long a failed ingest commit keeps the relay unready
// when no later commit has succeeded. Past it, readiness is offered again so
// that traffic can prove the store writable: an unready relay gets none.
const failingFor = 10 * time.Second

// commitHealth remembers the outcome of the latest ingest commit.
type commitHealth struct {
	mu       sync.Mutex
	failed   bool      // guarded by mu
	failedAt time.Time // guarded by mu
}

func (h *commitHealth) observe(err error, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failed = err != nil
	if h.failed {
		h.failedAt = now
	}
}

// failing reports whether the latest commit failed, recently.
func (h *commitHealth) failing(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failed && now.Sub(h.failedAt) < failingFor
}
