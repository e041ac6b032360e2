// Package storecopy copies everything a relay keeps from one store to
// another, through the storage seam (store.Transfer), so that a relay
// moves from SQLite to PostgreSQL, or back, without losing or repeating a
// delivery. It is what `hookrelay copy-store` runs.
package storecopy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Errors a copy refuses to start with; nothing is written when they are
// returned.
var (
	// ErrPendingMigrations reports a source or a target whose schema is
	// not the newest this build knows.
	ErrPendingMigrations = errors.New("storecopy: pending migrations")
	// ErrTargetNotEmpty reports a target that already holds rows.
	ErrTargetNotEmpty = errors.New("storecopy: target not empty")
	// ErrCountMismatch reports a copy after which a table of the target
	// holds another number of rows than the source's.
	ErrCountMismatch = errors.New("storecopy: counts differ")
)

// DefaultBatch is how many rows one batch moves unless told otherwise.
const DefaultBatch = 500

// Store is what a copy needs of either side.
type Store interface {
	store.Transfer
	store.MigrationStatus
}

// TableCount is how many rows of one table a copy moved.
type TableCount struct {
	Table  string
	Source int64 // rows in the source before the copy
	Copied int64 // rows imported
	Target int64 // rows in the target after the copy
}

// Side names a side of a copy in errors: "source" or "target".
type Side string

// PendingError is ErrPendingMigrations with the side and the migrations.
type PendingError struct {
	Side       Side
	Migrations []string
}

func (e *PendingError) Error() string {
	return fmt.Sprintf("the %s database has %d pending migrations (%s)", e.Side, len(e.Migrations), strings.Join(e.Migrations, ", "))
}

func (e *PendingError) Unwrap() error { return ErrPendingMigrations }

// Copier copies one store into another.
type Copier struct {
	// Batch is how many rows one export and one import move: what the
	// copy holds in memory at once. DefaultBatch when 0.
	Batch int
	// Progress, when not nil, is called after each batch with the table
	// and how many of its rows are copied so far.
	Progress func(table string, copied int64)
	Logger   *slog.Logger
}

// Check refuses a copy that could not be exact: a side with pending
// migrations (a PendingError), or a target that holds rows (an error
// wrapping ErrTargetNotEmpty that names the tables). It returns the
// source's counts.
func (c *Copier) Check(ctx context.Context, src, dst Store) (map[string]int64, error) {
	for _, side := range []struct {
		name Side
		s    Store
	}{{"source", src}, {"target", dst}} {
		pending, err := side.s.PendingMigrations(ctx)
		if err != nil {
			return nil, fmt.Errorf("read the %s's migrations: %w", side.name, err)
		}
		if len(pending) > 0 {
			return nil, &PendingError{Side: side.name, Migrations: pending}
		}
	}
	held, err := dst.TableCounts(ctx)
	if err != nil {
		return nil, fmt.Errorf("count the target's rows: %w", err)
	}
	var full []string
	for _, t := range dst.TransferTables() {
		if held[t] > 0 {
			full = append(full, fmt.Sprintf("%s (%d)", t, held[t]))
		}
	}
	if len(full) > 0 {
		return nil, fmt.Errorf("%w: it holds rows in %s", ErrTargetNotEmpty, strings.Join(full, ", "))
	}
	counts, err := src.TableCounts(ctx)
	if err != nil {
		return nil, fmt.Errorf("count the source's rows: %w", err)
	}
	return counts, nil
}

// Copy checks both sides (see Check), copies every table of src into dst
// in batches, table after table in src's order, then checks that every
// table of the target holds as many rows as the source's; a difference
// is an error wrapping ErrCountMismatch. Both relays must be stopped:
// rows a running relay writes during the copy may be missed.
func (c *Copier) Copy(ctx context.Context, src, dst Store) ([]TableCount, error) {
	batch := c.Batch
	if batch <= 0 {
		batch = DefaultBatch
	}
	logger := c.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	before, err := c.Check(ctx, src, dst)
	if err != nil {
		return nil, err
	}
	var counts []TableCount
	for _, table := range src.TransferTables() {
		n, err := c.copyTable(ctx, src, dst, table, batch)
		if err != nil {
			return nil, err
		}
		logger.Info("table copied", "table", table, "rows", n)
		counts = append(counts, TableCount{Table: table, Source: before[table], Copied: n})
	}
	if err := dst.FinishImport(ctx); err != nil {
		return nil, err
	}
	after, err := dst.TableCounts(ctx)
	if err != nil {
		return nil, fmt.Errorf("count the target's rows: %w", err)
	}
	var differ []string
	for i := range counts {
		tc := &counts[i]
		tc.Target = after[tc.Table]
		if tc.Target != tc.Source || tc.Copied != tc.Source {
			differ = append(differ, fmt.Sprintf("%s: source %d, copied %d, target %d", tc.Table, tc.Source, tc.Copied, tc.Target))
		}
	}
	if len(differ) > 0 {
		return counts, fmt.Errorf("%w: %s", ErrCountMismatch, strings.Join(differ, "; "))
	}
	return counts, nil
}

// copyTable copies one table in batches and returns how many rows it
// copied.
func (c *Copier) copyTable(ctx context.Context, src, dst Store, table string, batch int) (int64, error) {
	var (
		after []any
		n     int64
	)
	for {
		rows, last, err := src.ExportRows(ctx, table, after, batch)
		if err != nil {
			return n, fmt.Errorf("copy %s: %w", table, err)
		}
		if len(rows.Rows) == 0 {
			return n, nil
		}
		if err := dst.ImportRows(ctx, rows); err != nil {
			return n, fmt.Errorf("copy %s: %w", table, err)
		}
		n += int64(len(rows.Rows))
		after = last
		if c.Progress != nil {
			c.Progress(table, n)
		}
	}
}
