package delivery

import "github.com/hookrelay/hookrelay/internal/store"

// attempt makes one push of c and returns once its outcome is recorded.
func (w *worker) attempt(c store.Claim) {
	done := make(chan struct{})
	w.deliver(c, func() { close(done) })
	<-done
}
