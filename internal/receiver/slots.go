package receiver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// slotKey names one secret slot of one source.
type slotKey struct {
	source string
	slot   int
}

// SlotCounter counts, per source and secret slot, the events each slot
// verified, and writes the counts to the store every second: the rotation
// status (`hookrelay secrets`) reads them from there, whichever receiver
// verified. A crash loses at most the last second of counts.
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

// verified counts one event that slot of source verified at.
func (c *SlotCounter) verified(source string, slot int, at time.Time) {
	if c == nil || slot == store.NoSlot {
		return
	}
	k := slotKey{source, slot}
	c.mu.Lock()
	n := c.counts[k]
	n.Source, n.Slot, n.Verified = source, slot, n.Verified+1
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
			k := slotKey{b.Source, b.Slot}
			n := c.counts[k]
			n.Source, n.Slot, n.Verified = b.Source, b.Slot, n.Verified+b.Verified
			if b.Last.After(n.Last) {
				n.Last = b.Last
			}
			c.counts[k] = n
		}
		c.mu.Unlock()
	}
}
