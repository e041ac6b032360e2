package delivery

import "sync"

// signals lets claims waiting on a pull destination hear that it may have
// new due work. A waiter takes the destination's channel before it looks at
// the queue; notify closes that channel, so a notice between the look and
// the wait is never missed.
type signals struct {
	mu sync.Mutex
	ch map[string]chan struct{} // guarded by mu
}

func newSignals() *signals { return &signals{ch: map[string]chan struct{}{}} }

// wait returns a channel closed at the destination's next notify.
func (s *signals) wait(destination string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.ch[destination]
	if !ok {
		c = make(chan struct{})
		s.ch[destination] = c
	}
	return c
}

// notify wakes every waiter of destination.
func (s *signals) notify(destination string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.ch[destination]; ok {
		close(c)
		delete(s.ch, destination)
	}
}
