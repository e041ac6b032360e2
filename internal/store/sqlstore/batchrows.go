package sqlstore

import (
	"strconv"
	"strings"
)

// ValuesRows is a Dialect's Rows as a VALUES list, one placeholder a value:
// SQLite's, which binds no arrays.
func ValuesRows(_ []string, rows [][]any) (string, []any) {
	args := make([]any, 0, len(rows)*len(rows[0]))
	for _, r := range rows {
		args = append(args, r...)
	}
	return "(VALUES " + Values(len(rows), len(rows[0])) + ") AS u", args
}

// UnnestRows is a Dialect's Rows as one array a column, unnested:
// PostgreSQL's. The statement is the same whatever the number of rows.
func UnnestRows(types []string, rows [][]any) (string, []any) {
	arrays, names := make([]string, len(types)), make([]string, len(types))
	args := make([]any, len(types))
	for i, t := range types {
		col := make([]any, len(rows))
		for j, r := range rows {
			col[j] = r[i]
		}
		arrays[i], names[i], args[i] = "?::"+t+"[]", "column"+strconv.Itoa(i+1), col
	}
	return "unnest(" + strings.Join(arrays, ", ") + ") AS u(" + strings.Join(names, ", ") + ")", args
}
