package sqlite

import (
	"context"
	"fmt"
)

// AnnounceReload implements store.Fleet: no other process shares the
// file, so there is no one to tell.
func (s *Store) AnnounceReload(context.Context, string) error {
	release, err := s.enter()
	if err != nil {
		return fmt.Errorf("announce reload: %w", err)
	}
	release()
	return nil
}

// ListenReloads implements store.Fleet: it delivers nothing, and closes
// the channel when ctx is done.
func (s *Store) ListenReloads(ctx context.Context) (<-chan string, error) {
	release, err := s.enter()
	if err != nil {
		return nil, fmt.Errorf("listen for reload announcements: %w", err)
	}
	release()
	ch := make(chan string)
	go func() {
		<-ctx.Done()
		close(ch)
	}()
	return ch, nil
}
