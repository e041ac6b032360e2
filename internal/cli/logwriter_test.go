package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
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
	var writes int
	testkit.Eventually(t, 5*time.Second, "1000 lines flushed", func() error {
		var s string
		s, writes = out.String()
		n := strings.Count(s, "\n")
		return testkit.Check(n == 1000, "%d of 1000", n)
	})
	if writes > 10 {
		t.Errorf("%d writes for 1000 lines: not batched", writes)
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
