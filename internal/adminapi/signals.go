package adminapi

import (
	"net/http"
	"sync"
)

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
