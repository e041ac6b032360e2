package sqlite

import (
	"context"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// replayBatch is, by default, how many deliveries one transaction of a replay
// re-arms: each holds the writer for some tens of milliseconds, so an
// ingest commit waits at most about that long behind one.
const replayBatch = 500

// newOps returns the operations written once, over this store's
// connections: reads on the read pool, writes on the single writer, whose
// transactions begin IMMEDIATE.
func (s *Store) newOps() *sqlstore.Ops {
	d := dialect
	d.Placeholder = sqlstore.Question
	d.ReplayBatch = s.replayBatch
	return sqlstore.NewOps(sqlstore.Backend{
		Read:  sqlstore.SQLConn{R: s.reader, Rewriter: s.rewriter},
		Write: sqlstore.SQLConn{R: s.writer, Rewriter: s.rewriter},
		InTx: func(ctx context.Context, fn func(sqlstore.Conn) error) error {
			tx, err := s.writer.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			if err := fn(sqlstore.SQLConn{R: tx, Rewriter: s.rewriter}); err != nil {
				return err
			}
			return tx.Commit()
		},
		Enter:    s.enter,
		MapErr:   mapErr,
		Dialect:  d,
		Payloads: s.payloads,
	})
}
