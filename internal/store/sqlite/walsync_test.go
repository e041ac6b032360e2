package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/storetest"
)

// TestWALSyncerCoversEveryCommit checks the group fsync's promise: a wait
// returns only after an fsync that started after its commit, and concurrent
// waits share fsyncs.
func TestWALSyncerCoversEveryCommit(t *testing.T) {
	t.Parallel()
	w := newWALSyncer(filepath.Join(t.TempDir(), "x.db"))
	var (
		mu      sync.Mutex
		started []uint64 // the committed count seen by each fsync as it began
		calls   atomic.Int64
	)
	w.fsync = func(string) error {
		calls.Add(1)
		w.mu.Lock()
		c := w.committed
		w.mu.Unlock()
		mu.Lock()
		started = append(started, c)
		mu.Unlock()
		time.Sleep(2 * time.Millisecond) // a disk
		return nil
	}
	const commits = 200
	var wg sync.WaitGroup
	for range commits {
		wg.Go(func() {
			seq := w.committedOne()
			if err := w.waitDurable(seq); err != nil {
				t.Error(err)
				return
			}
			// Some fsync that began at or after this commit has finished.
			mu.Lock()
			defer mu.Unlock()
			covered := false
			for _, c := range started {
				if c >= seq {
					covered = true
				}
			}
			if !covered {
				t.Errorf("commit %d returned before an fsync covered it", seq)
			}
		})
	}
	wg.Wait()
	if n := calls.Load(); n >= commits {
		t.Errorf("%d fsyncs for %d concurrent commits: none were shared", n, commits)
	}
}

func TestWALSyncerFailureIsSticky(t *testing.T) {
	t.Parallel()
	w := newWALSyncer(filepath.Join(t.TempDir(), "x.db"))
	fail := errors.New("EIO")
	w.fsync = func(string) error { return fail }
	if err := w.waitDurable(w.committedOne()); !errors.Is(err, store.ErrUnavailable) || !errors.Is(err, fail) {
		t.Fatalf("waitDurable after a failed fsync: %v", err)
	}
	w.fsync = func(string) error { return nil }
	if err := w.waitDurable(w.committedOne()); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("waitDurable after an earlier failed fsync: %v, want it to keep failing", err)
	}
}

// TestIngestSyncsTheWAL checks, against a real database, that Ingest waits
// for the WAL's fsync and that it reaches the real file.
func TestIngestSyncsTheWAL(t *testing.T) {
	t.Parallel()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	var synced atomic.Int64
	real := s.wal.fsync
	s.wal.fsync = func(path string) error {
		synced.Add(1)
		return real(path)
	}
	if _, err := s.Ingest(context.Background(), []store.IngestItem{storetest.Item("stripe", "evt_1", []byte(`{}`))}); err != nil {
		t.Fatal(err)
	}
	if synced.Load() == 0 {
		t.Fatal("Ingest returned without fsyncing the write-ahead log")
	}
}
