package relayproc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/testkit"
)

// ready serves /readyz as a ready relay does.
func ready(t *testing.T) string {
	t.Helper()
	return serveReadyz(t, readyBody)
}

// serveReadyz serves /readyz with 200 and body.
func serveReadyz(t *testing.T, body string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// TestWaitReadyNotAnotherServer: a server that took the relay's admin
// port and answers 200 with something else is not the relay being ready.
func TestWaitReadyNotAnotherServer(t *testing.T) {
	t.Parallel()
	p, err := Start(Options{Binary: "sleep", Args: []string{"30"}, Admin: serveReadyz(t, `{"status":"stored"}`)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	if err := p.WaitReady(context.Background(), 300*time.Millisecond); err == nil || !strings.Contains(err.Error(), "not ready") {
		t.Fatalf("WaitReady = %v, want not ready", err)
	}
}

func TestPortTaken(t *testing.T) {
	t.Parallel()
	log := `{"level":"ERROR","msg":"serve: listen tcp 127.0.0.1:40123: bind: address already in use"}`
	if !portTaken(log) || portTaken(`{"msg":"database is locked"}`) {
		t.Error("portTaken does not tell a taken port from another failure")
	}
}

func TestStartWaitReadySignal(t *testing.T) {
	t.Parallel()
	p, err := Start(Options{Binary: "sleep", Args: []string{"30"}, Admin: ready(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	if err := p.WaitReady(context.Background(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if p.Exited() {
		t.Fatal("exited while sleeping")
	}
	if err := p.Signal(syscall.SIGTERM, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if code, err := p.ExitCode(); code != -1 || err != nil {
		t.Errorf("ExitCode = %d, %v; want -1, nil", code, err)
	}
}

func TestWaitReadyExited(t *testing.T) {
	t.Parallel()
	p, err := Start(Options{Binary: "sh", Args: []string{"-c", "exit 3"}, Admin: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WaitReady(context.Background(), 5*time.Second); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("WaitReady = %v, want exited", err)
	}
	if code, err := p.ExitCode(); code != 3 || err != nil {
		t.Errorf("ExitCode = %d, %v; want 3, nil", code, err)
	}
}

func TestSignalTimeout(t *testing.T) {
	t.Parallel()
	var out Buffer
	p, err := Start(Options{Binary: "sh", Args: []string{"-c", "trap '' TERM; echo trapped; sleep 30 >/dev/null 2>&1"}, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	waitTrapped(t, &out)
	if err := p.Signal(syscall.SIGTERM, 200*time.Millisecond); !errors.Is(err, ErrStillRunning) {
		t.Fatalf("Signal = %v, want ErrStillRunning", err)
	}
}

func TestMemory(t *testing.T) {
	t.Parallel()
	rss, hwm, err := Memory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || hwm < rss {
		t.Errorf("rss %d, hwm %d", rss, hwm)
	}
}

func TestFreeAddrs(t *testing.T) {
	t.Parallel()
	addrs, err := FreeAddrs(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range addrs {
		if !strings.HasPrefix(a, "127.0.0.1:") || seen[a] {
			t.Errorf("FreeAddrs gave %q (seen before: %v)", a, seen[a])
		}
		seen[a] = true
		_, p, _ := strings.Cut(a, ":")
		port, _ := strconv.Atoi(p)
		if port < lowestPort || port >= ephemeralStart() {
			t.Errorf("FreeAddrs gave port %d, want one in [%d, %d): below the kernel's ephemeral range", port, lowestPort, ephemeralStart())
		}
		// Another process that claims its ports so finds this one claimed:
		// a lock through another open file is refused as its would be.
		f, err := os.Open(claimPath(port))
		if err != nil {
			t.Fatalf("port %d has no claim file: %v", port, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
			t.Errorf("port %d could be claimed again by another process", port)
		}
		f.Close()
	}
}

func TestOutputAndStderr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		split            bool
		wantOut, wantErr string
	}{
		{name: "together", wantOut: "out\nerr\n"},
		{name: "apart", split: true, wantOut: "out\n", wantErr: "err\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut strings.Builder
			o := Options{Binary: "sh", Args: []string{"-c", "echo out; echo err >&2"}, Output: &out}
			if tt.split {
				o.Stderr = &errOut
			}
			p, err := Start(o)
			if err != nil {
				t.Fatal(err)
			}
			<-p.Done()
			if out.String() != tt.wantOut || errOut.String() != tt.wantErr {
				t.Errorf("out %q, err %q; want %q, %q", out.String(), errOut.String(), tt.wantOut, tt.wantErr)
			}
		})
	}
}

func TestBufferWhileRunning(t *testing.T) {
	t.Parallel()
	var logs Buffer
	p, err := Start(Options{Binary: "sh", Args: []string{"-c", "for i in 1 2 3 4 5; do echo line; done"}, Output: &logs})
	if err != nil {
		t.Fatal(err)
	}
	for !p.Exited() {
		_ = logs.String() // read while the child writes; -race checks it
	}
	if got := strings.Count(logs.String(), "line\n"); got != 5 {
		t.Errorf("%d lines, want 5:\n%s", got, logs.String())
	}
}

// waitTrapped waits until a shell started by a test has printed
// "trapped", which its script does once its trap is set.
func waitTrapped(t *testing.T, out *Buffer) {
	t.Helper()
	testkit.Eventually(t, 10*time.Second, "the shell to set its trap", func() error {
		return testkit.Check(strings.Contains(out.String(), "trapped"), "it printed %q", out.String())
	})
}
