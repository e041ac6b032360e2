package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// maxRowsPerStatement caps the rows of one multi-row INSERT. Batches are cut
// into chunks of power-of-two sizes, so each kind of insert needs at most a
// handful of prepared statements.
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

// multiRowInsert is one INSERT of a fixed shape, prepared for each chunk
// size on first use.
type multiRowInsert struct {
	head, row, tail string // "INSERT … VALUES ", "(?, …)", " ON CONFLICT …"

	stmts map[int]*sql.Stmt // by row count; guarded by the store's stmtMu
}

func (m *multiRowInsert) query(rows int) string {
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

// prepareMultiRow prepares m's statement for every chunk size, once. It
// must run outside a transaction: the writer has a single connection.
func (s *Store) prepareMultiRow(ctx context.Context, m *multiRowInsert) error {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	for rows := 1; rows <= maxRowsPerStatement; rows *= 2 {
		if _, ok := m.stmts[rows]; ok {
			continue
		}
		st, err := s.writer.PrepareContext(ctx, m.query(rows))
		if err != nil {
			return fmt.Errorf("prepare %d-row insert: %w", rows, err)
		}
		m.stmts[rows] = st
	}
	return nil
}

// multiRowStmt returns m's prepared statement for rows rows, bound to tx.
func (s *Store) multiRowStmt(ctx context.Context, tx *sql.Tx, m *multiRowInsert, rows int) *sql.Stmt {
	s.stmtMu.Lock()
	st := m.stmts[rows]
	s.stmtMu.Unlock()
	return tx.StmtContext(ctx, st)
}

// closeMultiRow closes every prepared statement of m.
func closeMultiRow(m *multiRowInsert) []error {
	var errs []error
	for _, st := range m.stmts {
		errs = append(errs, st.Close())
	}
	return errs
}
