package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// maxRowsPerStatement caps the rows of one multi-row statement. Batches are cut
// into chunks of power-of-two sizes, so each kind of statement needs at most
// a handful of prepared statements.
const maxRowsPerStatement = 64

// chunkRows returns how many of n remaining rows the next statement takes:
// the largest power of two not above n or the cap.
func chunkRows(n int) int {
	c := 1
	for c*2 <= n && c*2 <= maxRowsPerStatement {
		c *= 2
	}
	return c
}

// multiRow is one statement of a fixed shape over a list of rows — an
// INSERT, or an UPDATE from a VALUES list — prepared for every chunk size
// on first use.
//
// Preparing needs the writer's only connection, so it must never wait while
// a transaction on that connection waits for it: statements are prepared
// under mu before any ingest transaction begins, and once ready is set the
// map is read without a lock, from inside transactions.
type multiRow struct {
	head, row, tail string // e.g. "INSERT … VALUES ", "(?, …)", " ON CONFLICT …"

	mu    sync.Mutex        // held only while preparing
	ready atomic.Bool       // stmts is complete and no longer written
	stmts map[int]*sql.Stmt // by row count
}

func (m *multiRow) query(rows int) string {
	var b strings.Builder
	b.WriteString(m.head)
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.row)
	}
	b.WriteString(m.tail)
	return b.String()
}

// prepareMultiRows prepares each of ms for every chunk size, once. It must
// run outside a transaction: the writer has a single connection.
func (s *Store) prepareMultiRows(ctx context.Context, ms ...*multiRow) error {
	for _, m := range ms {
		if err := s.prepareMultiRow(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// prepareMultiRow prepares m's statement for every chunk size, once.
func (s *Store) prepareMultiRow(ctx context.Context, m *multiRow) error {
	if m.ready.Load() {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ready.Load() {
		return nil
	}
	stmts := make(map[int]*sql.Stmt)
	for rows := 1; rows <= maxRowsPerStatement; rows *= 2 {
		st, err := s.writer.PrepareContext(ctx, s.rewriter.SQL(m.query(rows)))
		if err != nil {
			for _, st := range stmts {
				st.Close()
			}
			return fmt.Errorf("prepare %d-row statement: %w", rows, err)
		}
		stmts[rows] = st
	}
	m.stmts = stmts
	m.ready.Store(true)
	return nil
}

// multiRowStmt returns m's prepared statement for rows rows, bound to tx.
// prepareMultiRows must have prepared m.
func (s *Store) multiRowStmt(ctx context.Context, tx *sql.Tx, m *multiRow, rows int) *sql.Stmt {
	return tx.StmtContext(ctx, m.stmts[rows])
}

// eachChunk calls run with m's statement in tx for each chunk of args,
// the values of rows of cols columns each, in chunks of the sizes m is
// prepared for. prepareMultiRows must have prepared m.
func (s *Store) eachChunk(ctx context.Context, tx *sql.Tx, m *multiRow, cols int, args []any, run func(*sql.Stmt, []any) error) error {
	for start, rows := 0, len(args)/cols; start < rows; {
		n := chunkRows(rows - start)
		if err := run(s.multiRowStmt(ctx, tx, m, n), args[start*cols:(start+n)*cols]); err != nil {
			return err
		}
		start += n
	}
	return nil
}

// execChunks runs m in tx over args, as eachChunk cuts them.
func (s *Store) execChunks(ctx context.Context, tx *sql.Tx, m *multiRow, cols int, args []any) error {
	return s.eachChunk(ctx, tx, m, cols, args, func(st *sql.Stmt, args []any) error {
		_, err := st.ExecContext(ctx, args...)
		return err
	})
}

// queryChunks runs m in tx over args, as eachChunk cuts them, and calls
// scan for each row the statements return.
func (s *Store) queryChunks(ctx context.Context, tx *sql.Tx, m *multiRow, cols int, args []any, scan func(*sql.Rows) error) error {
	return s.eachChunk(ctx, tx, m, cols, args, func(st *sql.Stmt, args []any) error {
		rows, err := st.QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// closeMultiRow closes every prepared statement of m.
func closeMultiRow(m *multiRow) []error {
	var errs []error
	for _, st := range m.stmts {
		errs = append(errs, st.Close())
	}
	return errs
}
