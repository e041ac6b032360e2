package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// writeStmts are the writer's prepared statements, reused by every call.
type writeStmts struct {
	selectClaimable    *sql.Stmt
	releaseDeliveries  *sql.Stmt
	insertLostAttempts *sql.Stmt
	markLost           *sql.Stmt
	eventStored        *sql.Stmt

	seedDeliveryIDs      *sql.Stmt
	reserveDeliveryIDs   *sql.Stmt
	insertDeliveryLease  *sql.Stmt
	selectEndedLeases    *sql.Stmt
	deleteDeliveryLeases *sql.Stmt
	writeDeferred        *sql.Stmt
}

// all returns the statement fields with their queries.
func (st *writeStmts) all() []struct {
	dst   **sql.Stmt
	query string
} {
	return []struct {
		dst   **sql.Stmt
		query string
	}{
		{&st.selectClaimable, selectClaimable},
		{&st.releaseDeliveries, releaseDeliveries},
		{&st.insertLostAttempts, insertLostAttempts},
		{&st.markLost, markLost},
		{&st.eventStored, eventStored},
		{&st.seedDeliveryIDs, seedDeliveryIDs},
		{&st.reserveDeliveryIDs, reserveDeliveryIDs},
		{&st.insertDeliveryLease, insertDeliveryLease},
		{&st.selectEndedLeases, selectEndedLeases},
		{&st.deleteDeliveryLeases, deleteDeliveryLeases},
		{&st.writeDeferred, writeDeferred},
	}
}

// prepared returns the writer's statements, preparing them on first use:
// not at Open, because the tables may not exist until Migrate.
func (s *Store) prepared(ctx context.Context) (*writeStmts, error) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if s.stmts != nil {
		return s.stmts, nil
	}
	st := &writeStmts{}
	for _, p := range st.all() {
		stmt, err := s.writer.PrepareContext(ctx, s.rewriter.SQL(p.query))
		if err != nil {
			st.close()
			return nil, fmt.Errorf("prepare statements: %w", mapErr(ctx, err))
		}
		*p.dst = stmt
	}
	s.stmts = st
	return s.stmts, nil
}

// close closes the statements that were prepared.
func (st *writeStmts) close() error {
	var errs []error
	for _, p := range st.all() {
		if *p.dst != nil {
			errs = append(errs, (*p.dst).Close())
		}
	}
	return errors.Join(errs...)
}
