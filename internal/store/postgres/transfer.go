package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// TransferTables returns the tables a copy moves, in import order.
func (s *Store) TransferTables() []string { return sqlstore.TransferTableNames() }

// ExportRows returns at most limit rows of table after the key after, in
// key order, and the key of the last one.
func (s *Store) ExportRows(ctx context.Context, table string, after []any, limit int) (store.TableRows, []any, error) {
	t, err := sqlstore.TransferTable(table)
	if err != nil {
		return store.TableRows{}, nil, fmt.Errorf("export rows: %w", err)
	}
	if s.closed.Load() {
		return store.TableRows{}, nil, fmt.Errorf("export %s: %w: store closed", table, store.ErrUnavailable)
	}
	args := append(append([]any{}, after...), limit)
	rows, err := s.other.Query(ctx, t.SelectAfter(sqlstore.Dollar, after != nil), args...)
	if err != nil {
		return store.TableRows{}, nil, fmt.Errorf("export %s: %w", table, s.mapErr(ctx, err))
	}
	defer rows.Close()
	out := store.TableRows{Table: table, Columns: t.ColumnNames()}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return store.TableRows{}, nil, fmt.Errorf("export %s: %w", table, s.mapErr(ctx, err))
		}
		row := make([]any, len(t.Columns))
		for i, c := range t.Columns {
			if row[i], err = fromColumn(c, vals[i]); err != nil {
				return store.TableRows{}, nil, fmt.Errorf("export %s: %w", table, err)
			}
		}
		out.Rows = append(out.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return store.TableRows{}, nil, fmt.Errorf("export %s: %w", table, s.mapErr(ctx, err))
	}
	if len(out.Rows) == 0 {
		return out, after, nil
	}
	return out, out.Rows[len(out.Rows)-1][:t.Key], nil
}

// fromColumn returns a value pgx decoded from column c as a copy carries
// it.
func fromColumn(c sqlstore.Column, v any) (any, error) {
	switch x := v.(type) {
	case int32:
		v = int64(x)
	case int16:
		v = int64(x)
	}
	ok := false
	switch v.(type) {
	case nil:
		ok = true
	case string:
		ok = c.Kind == sqlstore.Text
	case int64:
		ok = c.Kind == sqlstore.Int
	case []byte:
		ok = c.Kind == sqlstore.Bytes
	case time.Time:
		ok = c.Kind == sqlstore.Time
	case bool:
		ok = c.Kind == sqlstore.Bool
	}
	if !ok {
		return nil, fmt.Errorf("column %s: PostgreSQL returned %T, want %s", c.Name, v, c.Kind)
	}
	return c.ExportValue(v), nil
}

// ImportRows inserts exported rows, ids included, in one transaction,
// with COPY: it takes any number of rows in one round trip, and writes
// the ids of identity columns as given.
func (s *Store) ImportRows(ctx context.Context, rows store.TableRows) error {
	t, err := sqlstore.TransferTable(rows.Table)
	if err != nil {
		return fmt.Errorf("import rows: %w", err)
	}
	vals, err := t.CheckImport(rows)
	if err != nil {
		return err
	}
	if s.closed.Load() {
		return fmt.Errorf("import %s: %w: store closed", t.Name, store.ErrUnavailable)
	}
	err = pgx.BeginFunc(ctx, s.other, func(tx pgx.Tx) error {
		_, err := tx.CopyFrom(ctx, pgx.Identifier{t.Name}, t.ColumnNames(), pgx.CopyFromRows(vals))
		return err
	})
	if err != nil {
		return fmt.Errorf("import %s: %w", t.Name, s.mapErr(ctx, err))
	}
	return nil
}

// FinishImport sets the sequence of each identity column past the
// largest imported id, so that the next row the relay inserts gets a
// new one.
func (s *Store) FinishImport(ctx context.Context) error {
	if s.closed.Load() {
		return fmt.Errorf("finish import: %w: store closed", store.ErrUnavailable)
	}
	for _, t := range sqlstore.TransferTables {
		if !t.Identity {
			continue
		}
		q := fmt.Sprintf("SELECT setval(pg_get_serial_sequence('%s', 'id'), coalesce(max(id), 0) + 1, false) FROM %s", t.Name, t.Name)
		if _, err := s.other.Exec(ctx, q); err != nil {
			return fmt.Errorf("finish import of %s: %w", t.Name, s.mapErr(ctx, err))
		}
	}
	return nil
}

// TableCounts returns how many rows each copied table holds.
func (s *Store) TableCounts(ctx context.Context) (map[string]int64, error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("count tables: %w: store closed", store.ErrUnavailable)
	}
	counts := make(map[string]int64, len(sqlstore.TransferTables))
	for _, t := range sqlstore.TransferTables {
		var n int64
		if err := s.other.QueryRow(ctx, "SELECT count(*) FROM "+t.Name).Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s: %w", t.Name, s.mapErr(ctx, err))
		}
		counts[t.Name] = n
	}
	return counts, nil
}
