package sqlite

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// Prune deletes, in one statement, up to req.Limit finished events past
// their retention, oldest first, with their deliveries and attempts, and
// returns how many it deleted: events received before DoneBefore whose
// deliveries are all done or skipped (or that have none), and events
// received before DeadBefore whose deliveries are all final with at least
// one dead. A zero bound prunes nothing by its rule; a Limit below 1
// deletes nothing. It runs on the writer, alone, so no delivery changes
// between the check and the delete.
func (s *Store) Prune(ctx context.Context, req store.PruneRequest) (int64, error) {
	release, err := s.enter()
	if err != nil {
		return 0, fmt.Errorf("prune: %w", err)
	}
	defer release()
	bound, boundID, ok := sqlstore.PruneBound(req)
	if !ok {
		return 0, nil
	}
	res, err := s.writer.ExecContext(ctx, pruneEvents,
		boundID, micros(bound), nullMicros(req.DeadBefore), nullMicros(req.DoneBefore), req.Limit)
	if err != nil {
		return 0, fmt.Errorf("prune: %w", mapErr(ctx, err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("prune: %w", err)
	}
	return n, nil
}
