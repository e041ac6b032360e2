package hookrelay_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay"
)

// Some tests run the application in a child process — the test binary
// itself, told by the environment which application to be — so that a
// handler can take the whole process down, as a crash or an os.Exit in
// production does, and the next run finds what it left.

// Environment of a child.
const (
	childEnv       = "HOOKRELAY_TEST_CHILD"        // which application to run; see children
	childDBEnv     = "HOOKRELAY_TEST_CHILD_DB"     // its Config.Database
	childDirEnv    = "HOOKRELAY_TEST_CHILD_DIR"    // a directory for its config file
	childPoisonEnv = "HOOKRELAY_TEST_CHILD_POISON" // the provider id of the event whose handler exits
)

// crashExit is the exit code of a child whose handler took it down.
const crashExit = 17

// children are the applications a child can run: each declares its
// handler destinations on r.
var children = map[string]func(r *hookrelay.Relay){
	// crashloop handles orders one at a time, and exits in the middle of
	// the poison event's handler, its transaction open.
	"crashloop": func(r *hookrelay.Relay) {
		poison := os.Getenv(childPoisonEnv)
		dest := orders(crashAttempts)
		dest.Timeout, dest.Concurrency = time.Second, 1
		r.Handle(dest, func(ctx context.Context, tx hookrelay.Tx, ev hookrelay.Event) error {
			if err := insertEffect(ctx, tx, ev, "handled"); err != nil {
				return err
			}
			if ev.ProviderEventID == poison {
				os.Exit(crashExit)
			}
			return nil
		})
		hookrelay.SetLeaseMargin(r, 100*time.Millisecond)
	},
}

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		if err := runChild(name); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runChild runs the application name until SIGTERM: it serves Receiver and
// Admin on ports of its own, and announces them on stdout as "ready
// INGEST_URL ADMIN_URL".
func runChild(name string) error {
	declare, ok := children[name]
	if !ok {
		return fmt.Errorf("no child application %q", name)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	file := filepath.Join(os.Getenv(childDirEnv), "hookrelay.yaml")
	yaml := fmt.Sprintf("tokens:\n  - {name: test, role: admin, secret: %q}\n", adminToken)
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		return err
	}
	r, err := hookrelay.New(hookrelay.Config{
		Database: os.Getenv(childDBEnv),
		File:     file,
		Sources:  []hookrelay.Source{{Name: "stripe", Verify: "stripe", Secrets: []string{stripeSecret}}},
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	if err != nil {
		return err
	}
	declare(r)
	if err := r.Start(ctx); err != nil {
		return err
	}
	defer r.Close()
	mux := http.NewServeMux()
	mux.Handle("/webhooks/", r.Receiver())
	var urls []string
	for _, h := range []http.Handler{mux, r.Admin()} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		urls = append(urls, "http://"+ln.Addr().String())
	}
	fmt.Printf("ready %s %s\n", urls[0], urls[1])
	<-ctx.Done()
	return nil
}

// child is a running child application.
type child struct {
	*bundle
	cmd    *exec.Cmd
	done   chan struct{} // closed once it has exited
	code   int           // its exit code; set before done is closed
	stderr *lockedBuffer
}

// startChild runs the application name on database db, with env added to
// its environment, and returns once it serves. Its logs are shown when the
// test fails.
func startChild(t *testing.T, name, db string, app appDB, env ...string) *child {
	t.Helper()
	c, served := launchChild(t, name, db, app, env...)
	if !served {
		t.Fatalf("child %s exited %d before it served; it logged:\n%s", name, c.code, c.stderr.String())
	}
	return c
}

// launchChild is startChild for a child that may exit before it serves:
// it returns once the child serves, or once it has exited without
// serving, which served tells.
func launchChild(t *testing.T, name, db string, app appDB, env ...string) (c *child, served bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), append(env, childEnv+"="+name, childDBEnv+"="+db, childDirEnv+"="+t.TempDir())...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c = &child{cmd: cmd, done: make(chan struct{}), stderr: &lockedBuffer{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
		c.code = cmd.ProcessState.ExitCode()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.stop(t)
		if t.Failed() {
			t.Logf("child %s (exit %d) logged:\n%s", name, c.code, c.stderr.String())
		}
	})
	var line string
	select {
	case line = <-ready:
	case <-time.After(30 * time.Second):
		t.Fatalf("child %s not ready after 30s; it logged:\n%s", name, c.stderr.String())
	}
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "ready" {
		<-c.done
		return c, false
	}
	c.bundle = &bundle{ingest: f[1], admin: f[2], app: app}
	return c, true
}

// exited reports whether the child has exited.
func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stop ends the child as a deployment does, with SIGTERM, and waits for it.
func (c *child) stop(t *testing.T) {
	if c.exited() {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
		t.Errorf("child still running 30s after SIGTERM; killed")
	}
}

// lockedBuffer is a bytes.Buffer that a child writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
