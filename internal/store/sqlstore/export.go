package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// TransferTables returns the tables a copy moves, in import order.
func (o *Ops) TransferTables() []string { return TransferTableNames() }

// ExportRows returns at most limit rows of table after the key after, in
// key order, and the key of the last one.
func (o *Ops) ExportRows(ctx context.Context, table string, after []any, limit int) (store.TableRows, []any, error) {
	t, err := TransferTable(table)
	if err != nil {
		return store.TableRows{}, nil, fmt.Errorf("export rows: %w", err)
	}
	what := "export " + table
	release, err := o.enter()
	if err != nil {
		return store.TableRows{}, nil, fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	args := make([]any, 0, len(after)+1)
	for _, v := range after {
		args = append(args, o.bindValue(v))
	}
	args = append(args, limit)
	rows, err := o.b.Read.Query(ctx, t.SelectAfter(Question, after != nil), args...)
	read, err := collect(rows, err, func(row Rows) ([]any, error) {
		vals := make([]any, len(t.Columns))
		dest := make([]any, len(vals))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := row.Scan(dest...); err != nil {
			return nil, err
		}
		for i, c := range t.Columns {
			var err error
			if vals[i], err = c.readValue(vals[i]); err != nil {
				return nil, err
			}
		}
		return vals, nil
	})
	if err != nil {
		return store.TableRows{}, nil, o.fail(ctx, what, err)
	}
	out := store.TableRows{Table: table, Columns: t.ColumnNames()}
	if len(read) == 0 {
		return out, after, nil
	}
	out.Rows = read
	return out, read[len(read)-1][:t.Key], nil
}

// bindValue returns a value as a copy carries it as the driver binds it:
// a time as the driver stores one, anything else as it is.
func (o *Ops) bindValue(v any) any {
	if t, ok := v.(time.Time); ok {
		return o.b.Dialect.Time(t)
	}
	return v
}

// readValue returns a value read from column c, as either driver returns
// it, as a copy carries it: SQLite returns a time as INTEGER unix
// microseconds, a bool as 0 or 1, and text or bytes as either;
// PostgreSQL narrow integers as int32 or int16.
func (c Column) readValue(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return c.ExportValue(nil), nil
	case int16:
		v = int64(x)
	case int32:
		v = int64(x)
	}
	switch x := v.(type) {
	case int64:
		switch c.Kind {
		case Int:
			return x, nil
		case Time:
			return time.UnixMicro(x).UTC(), nil
		case Bool:
			return x != 0, nil
		}
	case string:
		switch c.Kind {
		case Text:
			return x, nil
		case Bytes:
			return []byte(x), nil
		}
	case []byte:
		switch c.Kind {
		case Bytes:
			return c.ExportValue(x), nil
		case Text:
			return string(x), nil
		}
	case time.Time:
		if c.Kind == Time {
			return c.ExportValue(x), nil
		}
	case bool:
		if c.Kind == Bool {
			return x, nil
		}
	}
	return nil, fmt.Errorf("column %s: the database returned %T, want %s", c.Name, v, c.Kind)
}

// TableCounts returns how many rows each copied table holds.
func (o *Ops) TableCounts(ctx context.Context) (map[string]int64, error) {
	release, err := o.enter()
	if err != nil {
		return nil, fmt.Errorf("count tables: %w", err)
	}
	defer release()
	counts := make(map[string]int64, len(TransferTables))
	for _, t := range TransferTables {
		var n int64
		if err := o.b.Read.QueryRow(ctx, "SELECT count(*) FROM "+t.Qualified()).Scan(&n); err != nil {
			return nil, o.fail(ctx, "count "+t.Name, err)
		}
		counts[t.Name] = n
	}
	return counts, nil
}
