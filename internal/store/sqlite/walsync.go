package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/hookrelay/hookrelay/internal/store"
)

// walSyncer makes committed transactions durable by fsyncing the WAL file
// itself, outside SQLite's write lock.
//
// The writer runs with synchronous=NORMAL, under which a WAL commit writes
// its frames to the file but does not fsync it. Ingest then waits, after
// COMMIT has released the writer, for an fsync of the WAL that began after
// its commit: the frames of every transaction committed before an fsync
// starts are on disk when it returns. So the next batch's statements run
// while the previous batch's fsync is in flight, and one fsync covers every
// commit that finished before it began — the same durability as
// synchronous=FULL, without holding the write lock through each fsync.
//
// Checkpoints keep their own syncs (NORMAL syncs the WAL before a
// checkpoint and the database after it), so frames recycled by a WAL reset
// were already durable in the database file.
type walSyncer struct {
	walPath string
	dirPath string
	fsync   func(path string) error // replaced in tests

	mu        sync.Mutex
	cond      *sync.Cond
	committed uint64 // commits announced so far; guarded by mu
	synced    uint64 // commits known durable; guarded by mu
	syncing   bool   // an fsync is running; guarded by mu
	failed    error  // a sticky fsync failure; guarded by mu
	lastIno   uint64 // inode of the WAL at the last sync; guarded by mu
}

func newWALSyncer(dbPath string) *walSyncer {
	w := &walSyncer{walPath: dbPath + "-wal", dirPath: filepath.Dir(dbPath)}
	w.fsync = w.syncFile
	w.cond = sync.NewCond(&w.mu)
	return w
}

// committedOne records that a transaction has committed and returns its
// sequence number, to pass to waitDurable.
func (w *walSyncer) committedOne() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.committed++
	return w.committed
}

// waitDurable returns once commit seq is on disk. A failed fsync is
// sticky: after it, the kernel may have dropped the dirty pages it could not
// write, so no later fsync can prove earlier commits durable, and every
// later call fails until the store is reopened (SQLite then recovers from
// what the WAL holds on disk).
func (w *walSyncer) waitDurable(seq uint64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.synced < seq {
		if w.failed != nil {
			return w.failed
		}
		if w.syncing {
			w.cond.Wait()
			continue
		}
		w.syncing = true
		target := w.committed
		w.mu.Unlock()
		err := w.fsync(w.walPath)
		w.mu.Lock()
		w.syncing = false
		if err != nil {
			w.failed = fmt.Errorf("%w: sync write-ahead log: %w", store.ErrUnavailable, err)
		} else {
			w.synced = max(w.synced, target)
		}
		w.cond.Broadcast()
	}
	return nil
}

// syncFile fsyncs the WAL file, opened anew each time so that a WAL that
// SQLite deleted and created again is never missed; when its inode changed,
// the directory entry is synced too.
func (w *walSyncer) syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	syncErr := f.Sync()
	info, statErr := f.Stat()
	closeErr := f.Close()
	if err := errors.Join(syncErr, statErr, closeErr); err != nil {
		return err
	}
	ino := uint64(0)
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	w.mu.Lock()
	changed := ino != w.lastIno
	w.mu.Unlock()
	if changed {
		if err := syncDir(w.dirPath); err != nil {
			return err
		}
		w.mu.Lock()
		w.lastIno = ino
		w.mu.Unlock()
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	return nil
}
