package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// replayBatch is, by default, how many deliveries one transaction of a replay
// re-arms.
const replayBatch = 10_000

// newOps returns the operations written once, over the pool that is not
// reserved for Ingest, but for the reads ingest depends on.
func (s *Store) newOps() *sqlstore.Ops {
	d := dialect
	d.Placeholder = sqlstore.Question // pgConn rebinds
	d.ReplayBatch = s.replayBatch
	c := pgConn{q: s.other, rw: s.opsSQL}
	return sqlstore.NewOps(sqlstore.Backend{
		Read:    c,
		Write:   c,
		Routing: pgConn{q: s.ingest, rw: s.opsSQL},
		InTx: func(ctx context.Context, fn func(sqlstore.Conn) error) error {
			return pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
				return fn(pgConn{q: tx, rw: s.opsSQL})
			})
		},
		Enter:    s.enter,
		MapErr:   s.mapErr,
		Dialect:  d,
		Payloads: s.payloads,
	})
}

// querier is what *pgxpool.Pool and pgx.Tx have in common.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// pgConn is a sqlstore.Conn over pgx, with its statements rewritten:
// tables under the store's schema, ? placeholders to $n.
type pgConn struct {
	q  querier
	rw *sqlstore.Rewriter
}

func (c pgConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := c.q.Exec(ctx, c.rw.SQL(query), args...)
	return tag.RowsAffected(), err
}

func (c pgConn) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return c.q.Query(ctx, c.rw.SQL(query), args...)
}

func (c pgConn) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return c.q.QueryRow(ctx, c.rw.SQL(query), args...)
}
