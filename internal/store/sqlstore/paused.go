package sqlstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// PausedRefresh is how long a PausedCache answers from memory before it
// reads the paused destinations again: a pause or resume made by another
// process takes effect within it; one made in this process at once.
const PausedRefresh = time.Second

// pauses counts the pauses and resumes made in this process: a
// PausedCache that read the set before the last one reads it again. It is
// one count for every store, so that SetPaused, written once for the
// drivers, reaches the cache of whichever store claims.
var pauses atomic.Uint64

// PausedCache remembers which destinations are paused, so that a claim
// costs no query to know it.
type PausedCache struct {
	mu     sync.Mutex
	read   time.Time       // when paused was read; guarded by mu
	seen   uint64          // pauses when paused was read; guarded by mu
	paused map[string]bool // guarded by mu
}

// Paused reports whether destination is paused, reading the set with load
// when it is older than PausedRefresh or than the last pause or resume
// made in this process.
func (c *PausedCache) Paused(ctx context.Context, destination string, load func(context.Context) (map[string]time.Time, error)) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if seen := pauses.Load(); c.paused == nil || c.seen != seen || time.Since(c.read) >= PausedRefresh {
		set, err := load(ctx)
		if err != nil {
			return false, err
		}
		c.paused = make(map[string]bool, len(set))
		for name := range set {
			c.paused[name] = true
		}
		c.read, c.seen = time.Now(), seen
	}
	return c.paused[destination], nil
}

// IsPaused reports whether destination is paused, answering from cache and
// reading the paused destinations through o when cache is stale. Claims
// ask it within a call that has already entered (see Backend.Enter), so it
// does not enter again.
func IsPaused(ctx context.Context, o *Ops, cache *PausedCache, destination string) (bool, error) {
	return cache.Paused(ctx, destination, o.readPaused)
}
