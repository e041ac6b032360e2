package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit/relayproc"
)

// noopHandler reads the whole body and answers 200: the cheapest handler
// that still does what any webhook endpoint must.
func noopHandler(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// runNoop serves noopHandler on --listen, prints the bound address as the
// first line of stdout, and stops on SIGTERM or SIGINT.
func runNoop(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("noop", stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(noopHandler), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintln(stdout, ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	return nil
}

// startNoop runs this program's noop command as a child process and returns
// it with the address it serves.
func startNoop(ctx context.Context) (*relayproc.Proc, string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", fmt.Errorf("find own executable: %w", err)
	}
	first := &firstLine{line: make(chan string, 1)}
	p, err := relayproc.Start(relayproc.Options{
		Binary: self, Args: []string{"noop", "--listen", "127.0.0.1:0"},
		Output: first, Stderr: os.Stderr,
	})
	if err != nil {
		return nil, "", fmt.Errorf("start noop: %w", err)
	}
	select {
	case addr := <-first.line:
		return p, addr, nil
	case <-p.Done():
		return nil, "", fmt.Errorf("start noop: exited before printing its address: %v", p.Err())
	case <-time.After(10 * time.Second):
	case <-ctx.Done():
	}
	p.Kill()
	return nil, "", errors.New("start noop: no address within 10s")
}

// firstLine is a writer that hands over the first line written to it and
// discards the rest.
type firstLine struct {
	buf  []byte
	sent bool
	line chan string
}

func (f *firstLine) Write(b []byte) (int, error) {
	if f.sent {
		return len(b), nil
	}
	f.buf = append(f.buf, b...)
	if i := bytes.IndexByte(f.buf, '\n'); i >= 0 {
		f.line <- strings.TrimSpace(string(f.buf[:i]))
		f.sent, f.buf = true, nil
	}
	return len(b), nil
}
