package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// ImportRows inserts exported rows, ids included, in one transaction,
// with COPY in place of the INSERTs of sqlstore.Ops.ImportRows: it takes
// any number of rows in one round trip, and writes the ids of identity
// columns as given.
func (s *Store) ImportRows(ctx context.Context, rows store.TableRows) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("import rows: %w", err)
	}
	defer release()
	t, vals, err := sqlstore.ImportValues(rows)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{s.tables.Schema(), t.Name}, t.ColumnNames(), pgx.CopyFromRows(vals))
		return err
	})
	if err != nil {
		return fmt.Errorf("import %s: %w", t.Name, s.mapErr(ctx, err))
	}
	return nil
}
