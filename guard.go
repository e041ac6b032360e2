package hookrelay

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// ErrManagedTx is returned by Commit and Rollback on a handler's
// PostgreSQL transaction, and is the failure recorded when a handler tried
// to end its transaction, by those methods or by SQL (COMMIT, ROLLBACK,
// END): the transaction is hookrelay's to end, with its record of the
// delivery, as the handler's result says. Such an attempt fails, its writes
// rolled back, whatever the handler returns. A nested transaction
// (Postgres().Begin, a savepoint) is the handler's: it commits or rolls
// back as it likes.
var ErrManagedTx = errors.New("hookrelay: the handler's transaction is committed or rolled back by hookrelay, as the handler's result says; return nil or an error instead")

// guardSavepoint is the savepoint a SQLite handler runs inside: released
// after it returns, it is gone if the handler ended the transaction.
const guardSavepoint = "hookrelay_handler"

// guard runs fn with the handler's view of the driver's transaction tx
// and fails the attempt, with ErrManagedTx, when fn tried to commit or roll
// tx back, whatever fn returned.
func guard(ctx context.Context, tx any, fn func(Tx) error) error {
	switch tx := tx.(type) {
	case pgx.Tx:
		g := &pgGuard{Tx: tx}
		err := fn(Tx{pg: g})
		if called := g.called.Load(); called != nil {
			return fmt.Errorf("handler called %s: %w", *called, ErrManagedTx)
		}
		if tx.Conn().PgConn().TxStatus() == 'I' { // idle: no transaction open any more
			return fmt.Errorf("handler ended the transaction: %w", ErrManagedTx)
		}
		return err
	case *sql.Tx:
		if _, err := tx.ExecContext(ctx, "SAVEPOINT "+guardSavepoint); err != nil {
			return fmt.Errorf("open the handler's savepoint: %w", err)
		}
		err := fn(Tx{sq: sqliteTx{tx}})
		_, rerr := tx.ExecContext(context.WithoutCancel(ctx), "RELEASE "+guardSavepoint)
		switch {
		case errors.Is(rerr, sql.ErrTxDone) && ctx.Err() != nil:
			// database/sql rolled the transaction back as ctx ended (the
			// handler cannot reach its Rollback): the handler ran out of
			// time; it did not end the transaction.
			if err == nil {
				err = ctx.Err()
			}
			return err
		case rerr != nil:
			return fmt.Errorf("handler ended the transaction (%w): %w", rerr, ErrManagedTx)
		}
		return err
	}
	return fmt.Errorf("hookrelay: transaction of type %T", tx)
}

// pgGuard is a handler's PostgreSQL transaction: pgx's own, whose Commit
// and Rollback refuse, and note that they were called.
type pgGuard struct {
	pgx.Tx
	called atomic.Pointer[string] // the first of Commit and Rollback called
}

// Commit refuses: hookrelay commits the handler's transaction.
func (g *pgGuard) Commit(context.Context) error { return g.refuse("Commit") }

// Rollback refuses: hookrelay rolls the handler's transaction back.
func (g *pgGuard) Rollback(context.Context) error { return g.refuse("Rollback") }

func (g *pgGuard) refuse(method string) error {
	g.called.CompareAndSwap(nil, &method)
	return fmt.Errorf("%s: %w", method, ErrManagedTx)
}

// SQLiteTx is a handler's SQLite transaction: what sqlc's DBTX, and most
// query helpers written for database/sql, take — and no Commit or
// Rollback. Statements prepared with PrepareContext belong to the
// transaction. SAVEPOINT, RELEASE and ROLLBACK TO nest as usual.
type SQLiteTx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// sqliteTx is the SQLiteTx of a *sql.Tx, which a handler cannot reach.
type sqliteTx struct{ tx *sql.Tx }

func (t sqliteTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, query, args...)
}

func (t sqliteTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return t.tx.PrepareContext(ctx, query)
}

func (t sqliteTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(ctx, query, args...)
}

func (t sqliteTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(ctx, query, args...)
}
