package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
	"github.com/hookrelay/hookrelay/internal/testkit"
)

// TestIdleWALIsTruncated checks that once writes stop, the checkpointer
// empties the WAL file rather than leaving it at its high-water mark.
func TestIdleWALIsTruncated(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hookrelay.db")
	s := openFile(t, path)
	ctx := context.Background()
	body := make([]byte, 16<<10)
	for i := range 20 {
		items := make([]store.IngestItem, 0, 10)
		for j := range 10 {
			items = append(items, storetest.Item("stripe", fmt.Sprintf("evt_%d_%d", i, j), body))
		}
		if _, err := s.Ingest(ctx, items); err != nil {
			t.Fatal(err)
		}
	}
	size := walSize(t, path)
	if size == 0 {
		t.Fatal("the WAL is empty right after writes; the test proves nothing")
	}
	testkit.Eventually(t, 10*time.Second, "the WAL truncated after the last write", func() error {
		size = walSize(t, path)
		return testkit.Check(size == 0, "the WAL holds %d bytes", size)
	})
}

func walSize(t *testing.T, dbPath string) int64 {
	t.Helper()
	info, err := os.Stat(dbPath + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}
