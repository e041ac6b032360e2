package receiver

import (
	"sync"
	"time"
)

// tallyInterval is how often counts are written to the store.
const tallyInterval = time.Second

// flushLoop calls a counter's flush every tallyInterval from a goroutine
// of its own, and once more when closed: how the counters that write to
// the store (Tally, SlotCounter, RejectionCounter) keep writes off the
// request path.
type flushLoop struct {
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// startFlushLoop starts calling flush.
func startFlushLoop(flush func()) *flushLoop {
	l := &flushLoop{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(tallyInterval)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				flush()
			case <-l.stop:
				flush()
				return
			}
		}
	}()
	return l
}

// close makes the last flush and waits for it. Closing twice is a no-op.
func (l *flushLoop) close() {
	l.closeOnce.Do(func() { close(l.stop) })
	<-l.done
}
