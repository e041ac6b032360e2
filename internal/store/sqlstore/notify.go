package sqlstore

import "context"

// notify wakes, as tx commits, the listeners of dests (see
// Dialect.Notify); it does nothing on a driver without listeners.
func (o *Ops) notify(ctx context.Context, tx Conn, dests []string) error {
	if o.b.Dialect.Notify == "" || len(dests) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, o.b.Dialect.Notify, o.b.Dialect.List(distinct(dests)))
	return err
}

// distinct returns the distinct values of vs, in order.
func distinct(vs []string) []string {
	seen := make(map[string]bool, len(vs))
	out := vs[:0:0]
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
