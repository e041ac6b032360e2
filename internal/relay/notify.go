package relay

import "context"

// notifier is a store that tells every process when deliveries were
// created: PostgreSQL's LISTEN/NOTIFY. On SQLite there is one process and
// the receiver wakes the engine directly.
type notifier interface {
	Listen(ctx context.Context) (<-chan string, error)
}

// forwardNotifications wakes this process's delivery engine for work that
// other processes' receivers committed, when the store can tell.
func (r *Relay) forwardNotifications(ctx context.Context) {
	n, ok := r.store.(notifier)
	if !ok {
		return
	}
	ch, err := n.Listen(ctx)
	if err != nil {
		// The engine still polls; wake-ups only make it prompt.
		r.logger.Warn("listen for delivery notifications", "error", err)
		return
	}
	go func() {
		for dest := range ch {
			r.wake(dest)
		}
	}()
}
