package sqlstore

import "context"

// upsertRows runs head + VALUES + tail over args, cols to a row, in as few
// statements as the limits on arguments allow; tail is what follows the
// rows, such as an ON CONFLICT clause. In PostgreSQL no two rows of one
// statement may update the same row.
func upsertRows(ctx context.Context, c Conn, head string, cols int, args []any, tail string) error {
	per := maxArgs / cols * cols
	for len(args) > 0 {
		n := min(len(args), per)
		if _, err := c.Exec(ctx, head+Values(n/cols, cols)+tail, args[:n]...); err != nil {
			return err
		}
		args = args[n:]
	}
	return nil
}

// oneStatement tells whether upsertRows runs args, cols to a row, as one
// statement, which needs no transaction to be all or nothing.
func oneStatement(cols int, args []any) bool { return len(args) <= maxArgs/cols*cols }
