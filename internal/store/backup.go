package store

import "context"

// Backuper is a store that copies itself, live, into a file: SQLite. A
// PostgreSQL database is backed up with the server's own tools (pg_dump,
// base backups), which see every session's writes.
type Backuper interface {
	// BackupTo writes a consistent copy of the database, as of one moment,
	// to a new file at path, readable by its owner only, while ingest and
	// delivery go on. It refuses a path that exists.
	BackupTo(ctx context.Context, path string) error
}
