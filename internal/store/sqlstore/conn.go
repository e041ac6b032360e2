package sqlstore

import (
	"context"
	"database/sql"
)

// Conn runs the statements of the operations written once (see Ops): a
// connection pool or a transaction of either driver. Statements are written
// with ? placeholders, or ?N for the Nth argument; a driver whose database
// numbers its placeholders rewrites them (see Rebind).
type Conn interface {
	// Exec runs a statement and returns the number of rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// Query runs a statement that returns rows.
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	// QueryRow runs a statement that returns at most one row; its Scan
	// returns the driver's no-rows error when there is none.
	QueryRow(ctx context.Context, query string, args ...any) Row
}

// Rows is the result of Conn.Query. Close may be called more than once.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Row is the result of Conn.QueryRow.
type Row interface {
	Scan(dest ...any) error
}

// SQLRunner is what *sql.DB, *sql.Conn and *sql.Tx have in common.
type SQLRunner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// SQLConn is a Conn over database/sql, whose drivers take ? as they are;
// its statements' tables are rewritten by Rewriter.
type SQLConn struct {
	R        SQLRunner
	Rewriter *Rewriter
}

// Exec implements Conn.
func (c SQLConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := c.R.ExecContext(ctx, c.Rewriter.SQL(query), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Query implements Conn.
func (c SQLConn) Query(ctx context.Context, query string, args ...any) (Rows, error) {
	rows, err := c.R.QueryContext(ctx, c.Rewriter.SQL(query), args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

// QueryRow implements Conn.
func (c SQLConn) QueryRow(ctx context.Context, query string, args ...any) Row {
	return c.R.QueryRowContext(ctx, c.Rewriter.SQL(query), args...)
}

// sqlRows drops the error of Close, which Err reports.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }
