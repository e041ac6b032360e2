package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// BackupTo writes a copy of the database, as of the moment it starts, to a
// new file at path (VACUUM INTO: one read transaction, a compact file with
// no write-ahead log). It runs on the checkpoint connection, so the writer
// never waits for it; checkpoints wait until it is done. The file is made
// empty and private first, since VACUUM INTO would create it with the
// process's umask.
func (s *Store) BackupTo(ctx context.Context, path string) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("back up: %w", err)
	}
	defer release()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("back up: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("back up: %w", err)
	}
	if _, err := s.checkpointer.ExecContext(ctx, "VACUUM INTO ?", path); err != nil {
		return fmt.Errorf("back up: %w", errors.Join(mapErr(ctx, err), os.Remove(path)))
	}
	return nil
}
