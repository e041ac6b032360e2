package sqlstore

import (
	"context"
	"sync"
	"time"
)

// PausedRefresh is how long a PausedCache answers from memory before it
// reads the paused destinations again: a pause or resume made by another
// process takes effect within it; one made through the same store at once.
const PausedRefresh = time.Second

// PausedCache remembers which destinations are paused, so that a claim
// costs no query to know it.
type PausedCache struct {
	mu     sync.Mutex
	read   time.Time       // when paused was read; guarded by mu
	paused map[string]bool // guarded by mu
}

// Paused reports whether destination is paused, reading the set with load
// when it is older than PausedRefresh.
func (c *PausedCache) Paused(ctx context.Context, destination string, load func(context.Context) (map[string]time.Time, error)) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == nil || time.Since(c.read) >= PausedRefresh {
		set, err := load(ctx)
		if err != nil {
			return false, err
		}
		c.paused = make(map[string]bool, len(set))
		for name := range set {
			c.paused[name] = true
		}
		c.read = time.Now()
	}
	return c.paused[destination], nil
}

// Forget makes the next Paused read the set again: the store calls it
// after it pauses or resumes a destination.
func (c *PausedCache) Forget() {
	c.mu.Lock()
	c.paused = nil
	c.mu.Unlock()
}
