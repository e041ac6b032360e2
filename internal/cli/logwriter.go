package cli

import (
	"io"
	"sync"
	"time"
)

// logFlushInterval is how long a log line may wait in memory before it is
// written out.
const logFlushInterval = 100 * time.Millisecond

// logBufferSize is how many bytes of log lines are written in one go at most
// before a write waits for the flush.
const logBufferSize = 256 << 10

// bufferedLog batches log lines into few writes: at thousands of webhooks a
// second, one write syscall per line is a large share of the relay's CPU.
// Lines reach the underlying writer within logFlushInterval, or at once when
// the buffer fills; Close writes what is left. A process killed with SIGKILL
// can lose the last interval of lines — never an event, which is stored
// before its line is logged.
type bufferedLog struct {
	w io.Writer

	mu  sync.Mutex
	buf []byte // guarded by mu

	stop chan struct{}
	done chan struct{}
}

func newBufferedLog(w io.Writer) *bufferedLog {
	b := &bufferedLog{w: w, buf: make([]byte, 0, logBufferSize), stop: make(chan struct{}), done: make(chan struct{})}
	go b.run()
	return b
}

// Write buffers p, writing the buffer out first when p would overflow it.
func (b *bufferedLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf)+len(p) > logBufferSize {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *bufferedLog) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}

func (b *bufferedLog) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.flushLocked()
}

func (b *bufferedLog) run() {
	defer close(b.done)
	t := time.NewTicker(logFlushInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			b.flush()
		case <-b.stop:
			b.flush()
			return
		}
	}
}

// Close writes every buffered line and stops the flusher.
func (b *bufferedLog) Close() error {
	close(b.stop)
	<-b.done
	return nil
}
