package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/hookrelay/hookrelay/internal/store"
)

// ImportValues returns the table of rows, exported rows to import, and
// their values checked and in the table's column order (see
// Table.CheckImport).
func ImportValues(rows store.TableRows) (Table, [][]any, error) {
	t, err := TransferTable(rows.Table)
	if err != nil {
		return Table{}, nil, fmt.Errorf("import rows: %w", err)
	}
	vals, err := t.CheckImport(rows)
	if err != nil {
		return Table{}, nil, err
	}
	return t, vals, nil
}

// ImportRows inserts exported rows, ids included, in one transaction,
// as many to a statement as the limits on arguments allow. (PostgreSQL
// has a bulk path of its own: COPY.)
func (o *Ops) ImportRows(ctx context.Context, rows store.TableRows) error {
	t, vals, err := ImportValues(rows)
	if err != nil {
		return err
	}
	what := "import " + t.Name
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer release()
	args := make([]any, 0, len(vals)*len(t.Columns))
	for _, row := range vals {
		for _, v := range row {
			args = append(args, o.bindValue(v))
		}
	}
	prefix := fmt.Sprintf("INSERT INTO %s (%s) VALUES ", t.Qualified(), strings.Join(t.ColumnNames(), ", "))
	if err := o.b.InTx(ctx, func(tx Conn) error { return execRows(ctx, tx, prefix, len(t.Columns), args) }); err != nil {
		return o.fail(ctx, what, err)
	}
	return nil
}

// FinishImport makes the ids the database generates follow the imported
// ones, in each table whose ids it generates (see
// Dialect.ResetIdentity).
func (o *Ops) FinishImport(ctx context.Context) error {
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("finish import: %w", err)
	}
	defer release()
	if o.b.Dialect.ResetIdentity == "" {
		return nil
	}
	for _, t := range TransferTables {
		if !t.Identity {
			continue
		}
		if _, err := o.b.Write.Exec(ctx, fmt.Sprintf(o.b.Dialect.ResetIdentity, t.Qualified())); err != nil {
			return o.fail(ctx, "finish import of "+t.Name, err)
		}
	}
	return nil
}
