package postgres

import (
	"context"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// isPaused reports whether destination is paused; claims and NextDue ask.
func (s *Store) isPaused(ctx context.Context, destination string) (bool, error) {
	return sqlstore.IsPaused(ctx, s.Ops, &s.paused, destination)
}
