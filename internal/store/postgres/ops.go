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
	c := pgConn{q: s.other, rb: &s.rebinder}
	return sqlstore.NewOps(sqlstore.Backend{
		Read:    c,
		Write:   c,
		Routing: pgConn{q: s.ingest, rb: &s.rebinder},
		InTx: func(ctx context.Context, fn func(sqlstore.Conn) error) error {
			return pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
				return fn(pgConn{q: tx, rb: &s.rebinder})
			})
		},
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

// pgConn is a sqlstore.Conn over pgx, with ? placeholders rewritten to $n.
type pgConn struct {
	q  querier
	rb *sqlstore.Rebinder
}

func (c pgConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := c.q.Exec(ctx, c.rb.Rebind(query), args...)
	return tag.RowsAffected(), err
}

func (c pgConn) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	return c.q.Query(ctx, c.rb.Rebind(query), args...)
}

func (c pgConn) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return c.q.QueryRow(ctx, c.rb.Rebind(query), args...)
}
