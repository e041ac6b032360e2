package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
)

// privateMode is the mode of the files the store creates: the database, its
// WAL and its shared-memory file hold webhook payloads, for the relay's
// user alone.
const privateMode fs.FileMode = 0o600

// Log keys of the file-mode check.
const (
	logMode = "mode"
	logWant = "want"
	logFix  = "fix"
)

// createPrivate creates the database file at path, empty and private,
// unless it exists. The process's umask can only take bits away from
// privateMode; SQLite then creates the WAL and shared-memory files with
// the database file's mode (it sets their mode itself, whatever the
// umask), so all three are private.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, privateMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return f.Close()
}

// warnOpenModes logs a warning for each of the database's files that users
// other than its owner may read or write: one made before the store made
// its files private, or changed since. It changes nothing.
func warnOpenModes(logger *slog.Logger, path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			continue // the WAL and shared-memory files come and go
		}
		if mode := st.Mode().Perm(); mode&^privateMode != 0 {
			logger.Warn("database file is open to other users", logPath, p,
				logMode, fmt.Sprintf("%04o", mode), logWant, fmt.Sprintf("%04o", privateMode), logFix, "chmod 600 "+p)
		}
	}
}
