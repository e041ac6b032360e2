package relayproc

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for a child's writes and a reader's
// String at the same time: Options.Output for a child whose logs a test
// reads while it runs.
type Buffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

// Write appends p to the buffer.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
