package sqlite

import (
	"context"
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

// SupportsListener is false: one process owns a SQLite database, and its
// receiver wakes its delivery engine directly.
func (s *Store) SupportsListener() bool { return false }

// Listen fails with an error wrapping store.ErrNotSupported (or, after
// Close, store.ErrUnavailable): SQLite has no notification between
// processes.
func (s *Store) Listen(ctx context.Context) (<-chan string, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("listen for deliveries: %w", err)
	}
	defer release()
	return nil, fmt.Errorf("listen for deliveries: %w: SQLite has no notification between processes", store.ErrNotSupported)
}
