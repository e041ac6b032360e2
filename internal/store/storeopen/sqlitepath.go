package storeopen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// checkSQLitePath says, in one sentence that names the path and what to
// change, why a SQLite database cannot be opened at path: its directory is
// missing or not a directory, not writable, on a read-only file system, or
// the path is a directory or a file that cannot be written. It returns nil
// when nothing is wrong that it can see.
func checkSQLitePath(path string) error {
	const (
		change = "change database in the config"
		fix    = change + ", or"
	)
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("database sqlite:%s: the directory %s does not exist: %s create it (mkdir -p %s)", path, dir, fix, dir)
	case err != nil:
		return fmt.Errorf("database sqlite:%s: cannot reach the directory %s: %w", path, dir, err)
	case !st.IsDir():
		return fmt.Errorf("database sqlite:%s: %s is not a directory: %s", path, dir, change)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("database sqlite:%s: that is a directory, not a database file: %s", path, change)
	}
	// SQLite writes the database, its WAL and its shared-memory file
	// there: the directory must take new files.
	probe, err := os.CreateTemp(dir, ".hookrelay-probe-*")
	if err != nil {
		return fmt.Errorf("database sqlite:%s: cannot create files in %s (%s): %s make it writable by this user", path, dir, writeCause(err), fix)
	}
	_ = probe.Close()
	_ = os.Remove(probe.Name())
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("database sqlite:%s: cannot open the file for writing (%s): %s make it writable by this user", path, writeCause(err), fix)
	}
	return nil
}

// writeCause names why a write was refused.
func writeCause(err error) string {
	switch {
	case errors.Is(err, syscall.EROFS):
		return "read-only file system"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, syscall.ENOSPC):
		return "no space left on the device"
	}
	return err.Error()
}
