package sqlstore

import (
	"context"
	"strings"
)

// maxArgs bounds the arguments of one multi-row statement, under SQLite's
// limit on a statement's variables (32 766) and PostgreSQL's (65 535).
const maxArgs = 30000

// Values returns the VALUES list of rows rows of cols placeholders each:
// "(?, ?), (?, ?)".
func Values(rows, cols int) string {
	row := "(" + strings.Repeat("?, ", cols-1) + "?)"
	var b strings.Builder
	b.Grow(rows * (len(row) + 2))
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}

// execRows runs prefix + VALUES over args, cols to a row, in as few
// statements as the limits on arguments allow.
func execRows(ctx context.Context, c Conn, prefix string, cols int, args []any) error {
	per := maxArgs / cols * cols
	for len(args) > 0 {
		n := min(len(args), per)
		if _, err := c.Exec(ctx, prefix+Values(n/cols, cols), args[:n]...); err != nil {
			return err
		}
		args = args[n:]
	}
	return nil
}
