package postgres

import (
	"fmt"

	"github.com/hookrelay/hookrelay/internal/store"
)

// errClosed is what a call made after Close fails with.
var errClosed = fmt.Errorf("%w: store closed", store.ErrUnavailable)

// enter admits a call unless the store is closed, and returns the function
// that ends it: Close waits for the calls it admitted. A pool of the
// store's own would refuse calls after Close by itself; the application's
// pool (OpenPool) stays open, so the store refuses them here.
func (s *Store) enter() (release func(), err error) {
	s.gateMu.Lock()
	defer s.gateMu.Unlock()
	if s.closed.Load() {
		return nil, errClosed
	}
	s.inFlight.Add(1)
	return s.inFlight.Done, nil
}
