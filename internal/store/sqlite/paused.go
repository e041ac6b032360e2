package sqlite

import (
	"context"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// isPaused reports whether destination is paused; claims and NextDue ask.
// The caller holds s.mu.
func (s *Store) isPaused(ctx context.Context, destination string) (bool, error) {
	return sqlstore.IsPaused(ctx, s.Ops, &s.paused, destination)
}
