package sqlstore

import "fmt"

// in returns the condition that column is one of the values, of SQL
// type typ, of a list bound with List at placeholder ph (see
// Dialect.InList).
func (d Dialect) in(column, ph, typ string) string {
	return fmt.Sprintf(d.InList, column, ph, typ)
}

// locking returns clause, a locking clause such as FOR UPDATE OF e, where
// the database locks rows (see Dialect.RowLocks), and nothing elsewhere.
func (d Dialect) locking(clause string) string {
	if !d.RowLocks {
		return ""
	}
	return clause
}
