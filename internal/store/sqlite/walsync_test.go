package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
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
	w.fsync = func() error {
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
	w.fsync = func() error { return fail }
	if err := w.waitDurable(w.committedOne()); !errors.Is(err, store.ErrUnavailable) || !errors.Is(err, fail) {
		t.Fatalf("waitDurable after a failed fsync: %v", err)
	}
	w.fsync = func() error { return nil }
	if err := w.waitDurable(w.committedOne()); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("waitDurable after an earlier failed fsync: %v, want it to keep failing", err)
	}
	if err := w.fatal(); !errors.Is(err, fail) {
		t.Fatalf("fatal after a failed fsync: %v", err)
	}
}

// TestWALSyncerRecoversFromTransientFailures checks that a sync that could
// not reach the file (no descriptor left) is retried, and that a wait that
// gave up on it does not stop later waits from succeeding.
func TestWALSyncerRecoversFromTransientFailures(t *testing.T) {
	t.Parallel()
	w := newWALSyncer(filepath.Join(t.TempDir(), "x.db"))
	w.retryFor = 50 * time.Millisecond
	var failing atomic.Bool
	failing.Store(true)
	w.fsync = func() error {
		if failing.Load() {
			return fmt.Errorf("open write-ahead log: %w: %w", errTransient, syscall.EMFILE)
		}
		return nil
	}
	if err := w.waitDurable(w.committedOne()); !errors.Is(err, store.ErrUnavailable) || !errors.Is(err, syscall.EMFILE) {
		t.Fatalf("waitDurable while the WAL cannot be opened: %v", err)
	}
	if err := w.fatal(); err != nil {
		t.Fatalf("fatal after a transient failure: %v, want nil", err)
	}
	failing.Store(false)
	if err := w.waitDurable(w.committedOne()); err != nil {
		t.Fatalf("waitDurable once the WAL can be opened again: %v", err)
	}

	// A failure that clears within the retry window is never seen.
	w.retryFor = 5 * time.Second
	failing.Store(true)
	time.AfterFunc(30*time.Millisecond, func() { failing.Store(false) })
	if err := w.waitDurable(w.committedOne()); err != nil {
		t.Fatalf("waitDurable across a short transient failure: %v", err)
	}
}

// TestSyncNeedsNoNewDescriptor checks that once the WAL is open, syncing
// it opens nothing: a process out of descriptors still syncs.
func TestSyncNeedsNoNewDescriptor(t *testing.T) {
	t.Parallel()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	ctx := context.Background()
	if _, err := s.Ingest(ctx, []store.IngestItem{storetest.Item("stripe", "evt_1", []byte(`{}`))}); err != nil {
		t.Fatal(err)
	}
	// Replace the directory sync, the only other open, by a failure: a
	// sync that tried to open anything would fail.
	s.wal.dirPath = filepath.Join(t.TempDir(), "missing")
	if _, err := s.Ingest(ctx, []store.IngestItem{storetest.Item("stripe", "evt_2", []byte(`{}`))}); err != nil {
		t.Fatalf("Ingest with the WAL already open: %v", err)
	}
}

// TestRemovedDatabaseIsNoticed checks that removing the database file
// while it is open fails readiness, later ingests and liveness.
func TestRemovedDatabaseIsNoticed(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hookrelay.db")
	s := openFile(t, path)
	ctx := context.Background()
	if _, err := s.Ingest(ctx, []store.IngestItem{storetest.Item("stripe", "evt_1", []byte(`{}`))}); err != nil {
		t.Fatal(err)
	}
	if err := s.Fatal(); err != nil {
		t.Fatalf("Fatal before removal: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); !errors.Is(err, store.ErrUnavailable) || !errors.Is(err, errRemoved) {
		t.Errorf("Ping after removal: %v", err)
	}
	if _, err := s.Ingest(ctx, []store.IngestItem{storetest.Item("stripe", "evt_2", []byte(`{}`))}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ingest after removal: %v, want unavailable", err)
	}
	if err := s.Fatal(); !errors.Is(err, errRemoved) {
		t.Errorf("Fatal after removal: %v", err)
	}
}

// TestIngestSyncsTheWAL checks, against a real database, that Ingest waits
// for the WAL's fsync and that it reaches the real file.
func TestIngestSyncsTheWAL(t *testing.T) {
	t.Parallel()
	s := openFile(t, filepath.Join(t.TempDir(), "hookrelay.db"))
	var synced atomic.Int64
	real := s.wal.fsync
	s.wal.fsync = func() error {
		synced.Add(1)
		return real()
	}
	if _, err := s.Ingest(context.Background(), []store.IngestItem{storetest.Item("stripe", "evt_1", []byte(`{}`))}); err != nil {
		t.Fatal(err)
	}
	if synced.Load() == 0 {
		t.Fatal("Ingest returned without fsyncing the write-ahead log")
	}
}
