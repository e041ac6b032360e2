package postgres

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store/sqlstore"
)

// isPaused reports whether destination is paused; claims and NextDue ask.
func (s *Store) isPaused(ctx context.Context, destination string) (bool, error) {
	return sqlstore.IsPaused(ctx, s.Ops, &s.paused, destination)
}

// IsPaused reports whether destination is paused, as claims see it.
func (s *Store) IsPaused(ctx context.Context, destination string) (bool, error) {
	if err := s.Fatal(); err != nil { // the cache would answer after Close
		return false, fmt.Errorf("is %s paused: %w", destination, err)
	}
	paused, err := s.isPaused(ctx, destination)
	if err != nil {
		return false, fmt.Errorf("is %s paused: %w", destination, s.mapErr(ctx, err))
	}
	return paused, nil
}
