package receiver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// slotKey names one secret of one source, by its fingerprint.
type slotKey struct {
	source string
	secret string
}

// SlotCounter counts, per source and secret, the events each secret
// verified, and writes the counts to the store every second: the rotation
// status (`hookrelay secrets`) reads them from there, whichever receiver
// verified. Secrets are counted by fingerprint (config.SecretFingerprint),
// so that nodes listing them in different slots during a rolling
// rotation count the same secret as one. A crash loses at most the last
// second of counts.
type SlotCounter struct {
	store  store.Signals
	logger *slog.Logger
	now    func() time.Time

	mu     sync.Mutex
	counts map[slotKey]store.SlotCount // guarded by mu

	loop *flushLoop
}

// NewSlotCounter starts a SlotCounter. Call Close to flush and stop it.
func NewSlotCounter(st store.Signals, logger *slog.Logger) *SlotCounter {
	c := &SlotCounter{
		store:  st,
		logger: logger.With("component", "slots"),
		now:    time.Now,
		counts: make(map[slotKey]store.SlotCount),
	}
	c.loop = startFlushLoop(c.flush)
	return c
}

// verified counts one event that the secret with fingerprint secret of
// source verified at.
func (c *SlotCounter) verified(source, secret string, at time.Time) {
	if c == nil || secret == "" {
		return
	}
	k := slotKey{source, secret}
	c.mu.Lock()
	n := c.counts[k]
	n.Source, n.Secret, n.Verified = source, secret, n.Verified+1
	if at.After(n.Last) {
		n.Last = at
	}
	c.counts[k] = n
	c.mu.Unlock()
}

// Close writes the last counts and stops the counter. Closing twice is a
// no-op.
func (c *SlotCounter) Close() { c.loop.close() }

// flush moves the counts to the store; counts it could not write are put
// back for the next flush.
func (c *SlotCounter) flush() {
	c.mu.Lock()
	if len(c.counts) == 0 {
		c.mu.Unlock()
		return
	}
	batch := make([]store.SlotCount, 0, len(c.counts))
	for _, n := range c.counts {
		batch = append(batch, n)
	}
	clear(c.counts)
	c.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.store.CountSlots(ctx, batch, c.now()); err != nil {
		c.logger.Warn("write secret-slot counts", "error", err)
		c.mu.Lock()
		for _, b := range batch {
			k := slotKey{b.Source, b.Secret}
			n := c.counts[k]
			n.Source, n.Secret, n.Verified = b.Source, b.Secret, n.Verified+b.Verified
			if b.Last.After(n.Last) {
				n.Last = b.Last
			}
			c.counts[k] = n
		}
		c.mu.Unlock()
	}
}
