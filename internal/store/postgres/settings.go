package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// batchSender sends statements in one round trip: the pool, or a
// transaction.
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// idsAfterSettings sends settings — set_config calls local to the
// transaction they run in — and then query with args, all in one round
// trip, and returns the ids query selects. Sent to the pool, they run as
// one implicit transaction.
func idsAfterSettings(ctx context.Context, q batchSender, settings []string, query string, args ...any) ([]int64, error) {
	b := &pgx.Batch{}
	for _, s := range settings {
		b.Queue(s)
	}
	b.Queue(query, args...)
	br := q.SendBatch(ctx, b)
	var (
		ids []int64
		err error
	)
	for range settings {
		if _, err = br.Exec(); err != nil {
			break
		}
	}
	if err == nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return ids, err
}
