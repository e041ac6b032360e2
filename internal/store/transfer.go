package store

import (
	"context"
	"errors"
)

// ErrUnknownTable reports a transfer of a table the store does not copy.
var ErrUnknownTable = errors.New("store: unknown table")

// TableRows are rows of one table as a copy between two stores moves them:
// every column, by name, with values of the few types both drivers read
// and write alike. A value is nil (SQL NULL), string, int64, []byte,
// bool or time.Time (UTC, to the microsecond). Payload columns are the
// bytes as stored: a sealed body stays sealed, under its key id.
type TableRows struct {
	Table   string
	Columns []string
	Rows    [][]any
}

// Transfer is the copy of everything a relay keeps from one store to
// another, of the same driver or not: `hookrelay copy-store` exports each
// table in key order, in batches, and imports the batches into a freshly
// migrated, empty store. Ids are kept, so that the dedupe on provider ids,
// the replayed-signature rule and the audit log hold on the copy. A copy
// runs with both relays stopped.
type Transfer interface {
	// TransferTables returns the tables a copy moves, in the order they
	// are imported: an event before its deliveries, a delivery before its
	// attempts. Tables the database derives from others (delivery counts)
	// are not among them; the target derives them as the rows arrive.
	TransferTables() []string

	// ExportRows returns at most limit rows of table in key order, those
	// after the row whose key is after (nil: from the first), and the key
	// of the last row returned, to pass as after for the next batch. The
	// batch is empty at the end of the table. It fails with
	// ErrUnknownTable for a table TransferTables does not list, and with
	// an error wrapping ErrUnavailable when the database cannot be read.
	ExportRows(ctx context.Context, table string, after []any, limit int) (TableRows, []any, error)

	// ImportRows inserts rows exported by ExportRows, ids included, in one
	// transaction. A delivery that was processing is imported processing
	// with no lease token and a lease that ended when it was taken (its
	// updated_at), so that the first claim takes it again: the delivery
	// the source's process held is delivered again, as after a crash. It
	// fails with ErrUnknownTable for a table TransferTables does not
	// list, with an error that names the column when a value is of the
	// wrong type, and with an error wrapping ErrUnavailable when the
	// database cannot be written; nothing of the batch is then written.
	ImportRows(ctx context.Context, rows TableRows) error

	// FinishImport makes the ids the store generates from now on follow
	// the imported ones. A copy calls it once, after the last batch.
	FinishImport(ctx context.Context) error

	// TableCounts returns how many rows each of TransferTables holds.
	TableCounts(ctx context.Context) (map[string]int64, error)
}
