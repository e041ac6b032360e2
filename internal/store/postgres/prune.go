package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// Prune deletes finished events past their retention, as the operations
// written once for both drivers do (sqlstore.Ops.Prune), never one
// received at or after the earliest event with a deferred delivery not
// yet swept (store.Lease.Deferred): such a delivery has no row yet to
// keep its event, however short the retention.
func (s *Store) Prune(ctx context.Context, req store.PruneRequest) (int64, error) {
	release, err := s.enter()
	if err != nil {
		return 0, fmt.Errorf("prune: %w", err)
	}
	var since *time.Time
	err = s.other.QueryRow(ctx, s.sql.SQL(deferredSince)).Scan(&since)
	release()
	if err != nil {
		return 0, fmt.Errorf("prune: %w", s.mapErr(ctx, err))
	}
	if since != nil {
		req.DoneBefore = earlier(req.DoneBefore, *since)
		req.DeadBefore = earlier(req.DeadBefore, *since)
	}
	return s.Ops.Prune(ctx, req)
}

// earlier returns bound, or at when bound is set and later than at.
func earlier(bound, at time.Time) time.Time {
	if !bound.IsZero() && bound.After(at) {
		return at
	}
	return bound
}
