package reliability

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// tcpProxy forwards loopback connections to a target, and can cut them
// all: the relay then sees its database go away (every connection closed,
// every new one refused) without the shared server being touched.
type tcpProxy struct {
	target string

	mu    sync.Mutex
	addr  string
	ln    net.Listener          // nil while cut; guarded by mu
	conns map[net.Conn]struct{} // both ends of every open pair; guarded by mu
}

// newTCPProxy starts a proxy to target on a free loopback port; it is
// closed when the test ends.
func newTCPProxy(t *testing.T, target string) *tcpProxy {
	t.Helper()
	p := &tcpProxy{target: target, addr: "127.0.0.1:0", conns: map[net.Conn]struct{}{}}
	if err := p.listen(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cut() })
	return p
}

// Addr is the proxy's address, the same before and after a cut.
func (p *tcpProxy) Addr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addr
}

func (p *tcpProxy) listen() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return err
	}
	p.addr, p.ln = ln.Addr().String(), ln
	go p.accept(ln)
	return nil
}

// restore listens again on the same address; it returns when new
// connections are accepted.
func (p *tcpProxy) restore(t *testing.T) time.Time {
	t.Helper()
	if err := p.listen(); err != nil {
		t.Fatalf("restore proxy: %v", err)
	}
	return time.Now()
}

// cut closes the listener and every connection, and returns once they are
// all closed.
func (p *tcpProxy) cut() time.Time {
	p.mu.Lock()
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		_ = c.Close()
	}
	clear(p.conns)
	p.mu.Unlock()
	return time.Now()
}

func (p *tcpProxy) accept(ln net.Listener) {
	for {
		client, err := ln.Accept()
		if err != nil {
			return
		}
		go p.pipe(ln, client)
	}
}

// pipe connects client to the target until either side closes or a cut.
func (p *tcpProxy) pipe(ln net.Listener, client net.Conn) {
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		_ = client.Close()
		return
	}
	p.mu.Lock()
	if p.ln != ln {
		// Cut while this connection was being set up.
		p.mu.Unlock()
		_ = client.Close()
		_ = server.Close()
		return
	}
	p.conns[client], p.conns[server] = struct{}{}, struct{}{}
	p.mu.Unlock()

	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(server, client); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, server); done <- struct{}{} }()
	<-done
	_ = client.Close()
	_ = server.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}
