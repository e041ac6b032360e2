package sqlstore

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/hookrelay/hookrelay/internal/store"
)

const (
	// insertIngestCounts + VALUES + addIngestCounts adds counts to their
	// sources' rows. The rows go in source order, so that concurrent
	// flushes lock rows in one order.
	insertIngestCounts = `INSERT INTO hookrelay.ingest_counts AS c (source, received, duplicates, rejected) VALUES `
	addIngestCounts    = `
ON CONFLICT (source) DO UPDATE SET
	received = c.received + excluded.received,
	duplicates = c.duplicates + excluded.duplicates,
	rejected = c.rejected + excluded.rejected`
)

// CountIngest adds counts to the sources' totals, in one statement (or,
// past the limits on arguments, in one transaction).
func (o *Ops) CountIngest(ctx context.Context, counts map[string]store.SourceStats) error {
	release, err := o.enter()
	if err != nil {
		return fmt.Errorf("count ingest: %w", err)
	}
	defer release()
	if len(counts) == 0 {
		return nil
	}
	args := make([]any, 0, 4*len(counts))
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		c := counts[name]
		args = append(args, name, c.Received, c.Duplicates, c.Rejected)
	}
	add := func(c Conn) error { return upsertRows(ctx, c, insertIngestCounts, 4, args, addIngestCounts) }
	if oneStatement(4, args) {
		err = add(o.b.Write)
	} else {
		err = o.b.InTx(ctx, add)
	}
	if err != nil {
		return o.fail(ctx, "count ingest", err)
	}
	return nil
}
