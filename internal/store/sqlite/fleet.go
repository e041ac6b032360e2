package sqlite

import (
	"context"
)

// AnnounceReload implements store.Fleet: no other process shares the
// file, so there is no one to tell.
func (s *Store) AnnounceReload(context.Context, string) error { return nil }

// ListenReloads implements store.Fleet: it delivers nothing, and closes
// the channel when ctx is done.
func (s *Store) ListenReloads(ctx context.Context) (<-chan string, error) {
	ch := make(chan string)
	go func() {
		<-ctx.Done()
		close(ch)
	}()
	return ch, nil
}
