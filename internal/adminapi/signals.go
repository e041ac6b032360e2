package adminapi

import (
	"net/http"
	"sync"
)

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

// shutdownWatch ends the waits of claims when a server that serves them
// shuts down: http.Server.Shutdown waits for active requests, and a long
// poll would otherwise hold a relay's shutdown for up to a minute.
type shutdownWatch struct {
	mu      sync.Mutex
	servers map[*http.Server]bool // guarded by mu: servers hooked already
	once    sync.Once
	done    chan struct{} // closed at the first shutdown
}

func newShutdownWatch() *shutdownWatch {
	return &shutdownWatch{servers: map[*http.Server]bool{}, done: make(chan struct{})}
}

// watch hooks the server serving r, once per server, and returns a channel
// closed when one of them shuts down.
func (s *shutdownWatch) watch(r *http.Request) <-chan struct{} {
	srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server)
	if !ok {
		return s.done
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.servers[srv] {
		s.servers[srv] = true
		srv.RegisterOnShutdown(func() { s.once.Do(func() { close(s.done) }) })
	}
	return s.done
}
