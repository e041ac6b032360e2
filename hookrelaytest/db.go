package hookrelaytest

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// DB is the application's database, where Handler.Run opens the
// transaction it runs a handler in. Postgres and SQLite make one.
type DB struct {
	begin func(ctx context.Context) (transaction, error)
}

// transaction is a driver's transaction: tx is what the handler's Tx
// wraps (a pgx.Tx or a *sql.Tx).
type transaction struct {
	tx       any
	commit   func(ctx context.Context) error
	rollback func(ctx context.Context) error
}

// PgxBeginner opens pgx transactions: a *pgxpool.Pool, a *pgx.Conn, or a
// pgx.Tx, whose Begin opens a nested transaction (a savepoint).
type PgxBeginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Postgres returns the PostgreSQL database db opens transactions on: the
// application's own pool, a connection, or a transaction of its test,
// which the handler's nests in.
func Postgres(db PgxBeginner) DB {
	return DB{begin: func(ctx context.Context) (transaction, error) {
		tx, err := db.Begin(ctx)
		if err != nil {
			return transaction{}, fmt.Errorf("hookrelaytest: begin: %w", err)
		}
		return transaction{tx: tx, commit: tx.Commit, rollback: tx.Rollback}, nil
	}}
}

// SQLBeginner opens database/sql transactions: a *sql.DB or a *sql.Conn.
type SQLBeginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// SQLite returns the SQLite database (driver modernc.org/sqlite) db opens
// transactions on: the application's own *sql.DB, or a *sql.Conn of it.
func SQLite(db SQLBeginner) DB {
	return DB{begin: func(ctx context.Context) (transaction, error) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return transaction{}, fmt.Errorf("hookrelaytest: begin: %w", err)
		}
		return transaction{
			tx:       tx,
			commit:   func(context.Context) error { return tx.Commit() },
			rollback: func(context.Context) error { return tx.Rollback() },
		}, nil
	}}
}
