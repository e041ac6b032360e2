package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

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
	release, err := s.enter()
	if err != nil {
		return store.TableRows{}, nil, fmt.Errorf("export %s: %w", table, err)
	}
	defer release()
	var args []any
	for i, v := range after {
		args = append(args, toColumn(t.Columns[i], v))
	}
	args = append(args, limit)
	rows, err := s.reader.QueryContext(ctx, t.SelectAfter(sqlstore.Question, after != nil), args...)
	if err != nil {
		return store.TableRows{}, nil, fmt.Errorf("export %s: %w", table, mapErr(ctx, err))
	}
	defer rows.Close()
	out := store.TableRows{Table: table, Columns: t.ColumnNames()}
	for rows.Next() {
		holders := make([]any, len(t.Columns))
		for i := range holders {
			holders[i] = new(any)
		}
		if err := rows.Scan(holders...); err != nil {
			return store.TableRows{}, nil, fmt.Errorf("export %s: %w", table, mapErr(ctx, err))
		}
		row := make([]any, len(t.Columns))
		for i, c := range t.Columns {
			if row[i], err = fromColumn(c, *holders[i].(*any)); err != nil {
				return store.TableRows{}, nil, fmt.Errorf("export %s: %w", table, err)
			}
		}
		out.Rows = append(out.Rows, row)
	}
	if err := rows.Err(); err != nil {
		return store.TableRows{}, nil, fmt.Errorf("export %s: %w", table, mapErr(ctx, err))
	}
	if len(out.Rows) == 0 {
		return out, after, nil
	}
	return out, out.Rows[len(out.Rows)-1][:t.Key], nil
}

// fromColumn returns a value SQLite returned for column c as a copy
// carries it.
func fromColumn(c sqlstore.Column, v any) (any, error) {
	if v == nil {
		return c.ExportValue(nil), nil
	}
	switch c.Kind {
	case sqlstore.Text:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	case sqlstore.Bytes:
		switch x := v.(type) {
		case []byte:
			return c.ExportValue(x), nil
		case string:
			return []byte(x), nil
		}
	case sqlstore.Int, sqlstore.Time, sqlstore.Bool:
		n, ok := v.(int64)
		if !ok {
			break
		}
		switch c.Kind {
		case sqlstore.Time:
			return fromMicros(n), nil
		case sqlstore.Bool:
			return n != 0, nil
		}
		return n, nil
	}
	return nil, fmt.Errorf("column %s: SQLite returned %T, want %s", c.Name, v, c.Kind)
}

// toColumn returns a value as a copy carries it as SQLite stores it in
// column c.
func toColumn(c sqlstore.Column, v any) any {
	switch x := v.(type) {
	case time.Time:
		return micros(x)
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	}
	return v
}

// ImportRows inserts exported rows, ids included, in one transaction.
func (s *Store) ImportRows(ctx context.Context, rows store.TableRows) error {
	t, err := sqlstore.TransferTable(rows.Table)
	if err != nil {
		return fmt.Errorf("import rows: %w", err)
	}
	vals, err := t.CheckImport(rows)
	if err != nil {
		return err
	}
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("import %s: %w", t.Name, err)
	}
	defer release()
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("import %s: %w", t.Name, mapErr(ctx, err))
	}
	defer tx.Rollback()
	if err := insertRows(ctx, tx, t, vals); err != nil {
		return fmt.Errorf("import %s: %w", t.Name, mapErr(ctx, err))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("import %s: %w", t.Name, mapErr(ctx, err))
	}
	return nil
}

// insertRows inserts vals into t with one prepared statement.
func insertRows(ctx context.Context, tx *sql.Tx, t sqlstore.Table, vals [][]any) error {
	stmt, err := tx.PrepareContext(ctx, t.InsertOne(sqlstore.Question))
	if err != nil {
		return err
	}
	defer stmt.Close()
	args := make([]any, len(t.Columns))
	for _, row := range vals {
		for i, c := range t.Columns {
			args[i] = toColumn(c, row[i])
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

// FinishImport has nothing to do on SQLite: an AUTOINCREMENT table
// carries on after the largest id ever inserted, imported ones included.
func (s *Store) FinishImport(ctx context.Context) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("finish import: %w", err)
	}
	release()
	return nil
}

// TableCounts returns how many rows each copied table holds.
func (s *Store) TableCounts(ctx context.Context) (map[string]int64, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("count tables: %w", err)
	}
	defer release()
	counts := make(map[string]int64, len(sqlstore.TransferTables))
	for _, t := range sqlstore.TransferTables {
		var n int64
		if err := s.reader.QueryRowContext(ctx, "SELECT count(*) FROM "+t.Name).Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s: %w", t.Name, mapErr(ctx, err))
		}
		counts[t.Name] = n
	}
	return counts, nil
}
