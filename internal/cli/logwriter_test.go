package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	return l.b.Write(p)
}

func (l *lockedBuffer) String() (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String(), l.writes
}

func TestBufferedLogBatchesAndFlushes(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	b := newBufferedLog(&out)
	for i := range 1000 {
		_, _ = b.Write([]byte(strings.Repeat("x", i%50) + "\n"))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, writes := out.String()
		if strings.Count(s, "\n") == 1000 {
			if writes > 10 {
				t.Errorf("%d writes for 1000 lines: not batched", writes)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lines not flushed within 5s: %d of 1000", strings.Count(s, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, _ = b.Write([]byte("last\n"))
	_ = b.Close()
	if s, _ := out.String(); !strings.HasSuffix(s, "last\n") {
		t.Error("Close did not write the buffered line")
	}
}

func TestBufferedLogFlushesWhenFull(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	b := newBufferedLog(&out)
	defer b.Close()
	line := []byte(strings.Repeat("y", 1023) + "\n")
	for range logBufferSize/len(line) + 1 {
		_, _ = b.Write(line)
	}
	if s, _ := out.String(); len(s) < logBufferSize/2 {
		t.Errorf("a full buffer was not written at once (%d bytes out)", len(s))
	}
}
