package relay

import "context"

// forwardNotifications wakes this process's delivery engine for work that
// other processes' receivers committed, when the store supports a listener
// (PostgreSQL's LISTEN/NOTIFY). On SQLite there is one process and the
// receiver wakes the engine directly.
func (r *Relay) forwardNotifications(ctx context.Context) {
	if !r.store.SupportsListener() {
		return
	}
	ch, err := r.store.Listen(ctx)
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
