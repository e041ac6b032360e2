package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// writeStmts are the writer's prepared statements, reused by every batch.
type writeStmts struct {
	insertEvent     *sql.Stmt
	insertDelivery  *sql.Stmt
	insertRejection *sql.Stmt
}

// prepared returns the writer's statements, preparing them on first use:
// not at Open, because the tables may not exist until Migrate.
func (s *Store) prepared(ctx context.Context) (*writeStmts, error) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if s.stmts != nil {
		return s.stmts, nil
	}
	var st writeStmts
	for _, p := range []struct {
		dst   **sql.Stmt
		query string
	}{
		{&st.insertEvent, insertEvent},
		{&st.insertDelivery, insertDelivery},
		{&st.insertRejection, insertRejection},
	} {
		stmt, err := s.writer.PrepareContext(ctx, p.query)
		if err != nil {
			st.close()
			return nil, fmt.Errorf("prepare statements: %w", mapErr(ctx, err))
		}
		*p.dst = stmt
	}
	s.stmts = &st
	return s.stmts, nil
}

// close closes the statements that were prepared.
func (st *writeStmts) close() error {
	var errs []error
	for _, stmt := range []*sql.Stmt{st.insertEvent, st.insertDelivery, st.insertRejection} {
		if stmt != nil {
			errs = append(errs, stmt.Close())
		}
	}
	return errors.Join(errs...)
}
