package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

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
// The WAL stays open between syncs, so a sync needs no new file descriptor:
// a process that has run out of descriptors (a flood of connections) still
// makes its commits durable. Each sync checks by name, which needs no
// descriptor either, that the WAL and the database are still the files it
// knows; a WAL that SQLite created again is opened anew.
//
// Failures are of two kinds. A failed fsync is sticky: the kernel may have
// dropped the dirty pages it could not write, so no later fsync can prove
// earlier commits durable; so is a database or WAL file removed from under
// the process, whose later commits would vanish with the process. Sticky
// failures fail every later wait and Fatal reports them, for liveness: only
// a restart recovers. A failure to reach the file (opening or checking it)
// is transient: nothing was lost, the sync is retried with backoff, and a
// later sync recovers by itself.
//
// Checkpoints keep their own syncs (NORMAL syncs the WAL before a
// checkpoint and the database after it), so frames recycled by a WAL reset
// were already durable in the database file.
type walSyncer struct {
	walPath string
	dbPath  string
	dirPath string
	// fsync makes the WAL durable; replaced in tests. Its error is sticky
	// unless it wraps errTransient.
	fsync func() error
	// retryFor bounds how long a wait retries transient failures before
	// it answers with the last one.
	retryFor time.Duration

	mu        sync.Mutex
	cond      *sync.Cond
	committed uint64 // commits announced so far; guarded by mu
	synced    uint64 // commits known durable; guarded by mu
	syncing   bool   // an fsync is running; guarded by mu
	failed    error  // a sticky failure; guarded by mu

	// Used by the one goroutine that syncs (syncing), never concurrently.
	wal   *os.File // the open WAL, nil until the first sync
	walID fileID   // identity of wal
	dbID  fileID   // identity of the database file when it was opened
	hasDB bool     // dbID is known; set before the first sync
}

// errTransient marks a sync failure that lost nothing and may succeed on
// a later try.
var errTransient = errors.New("transient")

// errRemoved is the sticky failure of a database whose file was removed or
// replaced while the process ran.
var errRemoved = errors.New("database file removed or replaced while running")

// fileID identifies a file independently of its name.
type fileID struct{ dev, ino uint64 }

func idOf(info os.FileInfo) fileID {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(st.Dev), ino: st.Ino}
	}
	return fileID{}
}

// Backoff of the retries of a transient sync failure.
const (
	syncRetryFirst = 5 * time.Millisecond
	syncRetryMax   = 250 * time.Millisecond
	syncRetryFor   = 2 * time.Second
)

func newWALSyncer(dbPath string) *walSyncer {
	w := &walSyncer{walPath: dbPath + "-wal", dbPath: dbPath, dirPath: filepath.Dir(dbPath), retryFor: syncRetryFor}
	w.fsync = w.syncFile
	w.cond = sync.NewCond(&w.mu)
	return w
}

// remember records the identity of the database file as it is now, so that
// later syncs notice when it is removed or replaced.
func (w *walSyncer) remember() error {
	info, err := os.Stat(w.dbPath)
	if err != nil {
		return fmt.Errorf("stat database file: %w", err)
	}
	w.dbID, w.hasDB = idOf(info), true
	return nil
}

// committedOne records that a transaction has committed and returns its
// sequence number, to pass to waitDurable.
func (w *walSyncer) committedOne() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.committed++
	return w.committed
}

// waitDurable returns once commit seq is on disk. A transient failure is
// retried with backoff for up to w.retryFor, then returned; a sticky one is
// returned at once, now and by every later call. Either way the error wraps
// store.ErrUnavailable. The commit itself stands: an event whose wait
// failed may be durable after all (a later sync covers it), so a client
// told to retry finds it stored, as a duplicate.
func (w *walSyncer) waitDurable(seq uint64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var (
		giveUp  time.Time
		backoff = syncRetryFirst
	)
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
		err := w.fsync()
		w.mu.Lock()
		w.syncing = false
		w.cond.Broadcast()
		switch {
		case err == nil:
			w.synced = max(w.synced, target)
		case errors.Is(err, errTransient):
			if giveUp.IsZero() {
				giveUp = time.Now().Add(w.retryFor)
			}
			if time.Now().After(giveUp) {
				return fmt.Errorf("%w: sync write-ahead log: %w", store.ErrUnavailable, err)
			}
			w.mu.Unlock()
			time.Sleep(backoff)
			w.mu.Lock()
			backoff = min(2*backoff, syncRetryMax)
		default:
			w.failed = fmt.Errorf("%w: sync write-ahead log: %w", store.ErrUnavailable, err)
		}
	}
	return nil
}

// fatal returns the sticky failure, or nil.
func (w *walSyncer) fatal() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failed
}

// syncFile checks that the database and the WAL are still the files it
// knows, opens the WAL when it has none open or SQLite created it anew
// (syncing the directory entry then), and fsyncs it.
func (w *walSyncer) syncFile() error {
	if err := w.checkDB(); err != nil {
		return err
	}
	info, err := os.Stat(w.walPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("write-ahead log: %w", errRemoved)
		}
		return fmt.Errorf("stat write-ahead log: %w: %w", errTransient, err)
	}
	if w.wal != nil && idOf(info) != w.walID {
		_ = w.wal.Close()
		w.wal = nil
	}
	if w.wal == nil {
		f, err := os.Open(w.walPath)
		if err != nil {
			return fmt.Errorf("open write-ahead log: %w: %w", errTransient, err)
		}
		if err := syncDir(w.dirPath); err != nil {
			_ = f.Close()
			return fmt.Errorf("%w: %w", errTransient, err)
		}
		w.wal, w.walID = f, idOf(info)
	}
	return w.wal.Sync()
}

// checkDB fails when the database file is no longer the one opened.
func (w *walSyncer) checkDB() error {
	if !w.hasDB {
		return nil
	}
	info, err := os.Stat(w.dbPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errRemoved
	case err != nil:
		return fmt.Errorf("stat database file: %w: %w", errTransient, err)
	case idOf(info) != w.dbID:
		return errRemoved
	}
	return nil
}

// close closes the WAL it holds open. No sync may run after it.
func (w *walSyncer) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.wal == nil {
		return nil
	}
	err := w.wal.Close()
	w.wal = nil
	return err
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
