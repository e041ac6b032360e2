package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hookrelay/hookrelay/internal/store"
)

// mapErr maps a driver error to the store's sentinel errors: no rows to
// store.ErrNotFound; a full disk, an I/O error, a file that cannot be opened
// or written, a lock held too long by another process, and a cancelled or
// expired context to an error wrapping store.ErrUnavailable. Other errors
// are returned as they are.
func mapErr(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return store.ErrNotFound
	case ctx.Err() != nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return unavailable(err)
	}
	var serr *sqlite.Error
	if errors.As(err, &serr) {
		switch serr.Code() & 0xff { // the primary result code
		case sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN,
			sqlite3.SQLITE_READONLY, sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return unavailable(err)
		}
	}
	return err
}

// unavailable wraps err so that it matches both store.ErrUnavailable and err.
func unavailable(err error) error {
	return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
}
