// Package e2e runs the built hookrelay binary the way a user does: commands
// typed in a shell, a relay serving on loopback ports, signals to stop it.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// binary is the hookrelay binary built once for the package's tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hookrelay-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "hookrelay")
	build := exec.Command("go", "build", "-o", binary, "../cmd/hookrelay")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build hookrelay:", err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one command run printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary to completion with the given environment additions.
func run(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return result{out.String(), errOut.String(), code}
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// relayProc is a `hookrelay serve` child process.
type relayProc struct {
	cmd        *exec.Cmd
	public     string
	admin      string
	configPath string
	env        []string
	logs       *syncBuffer
	exited     chan struct{}
	exitErr    error
}

// writeConfig writes a config file into a temporary directory and returns
// its path. body is the YAML after the database and listener keys.
func writeConfig(t *testing.T, database, public, admin, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hookrelay.yaml")
	cfg := fmt.Sprintf("database: %q\nlisten: %q\nadmin_listen: %q\n%s", database, public, admin, body)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startRelay starts `hookrelay serve` on fresh ports and waits until it is
// ready. It is killed at the end of the test if still running.
func startRelay(t *testing.T, database, body string, env []string) *relayProc {
	t.Helper()
	p := &relayProc{public: freeAddr(t), admin: freeAddr(t), env: env, logs: &syncBuffer{}, exited: make(chan struct{})}
	p.configPath = writeConfig(t, database, p.public, p.admin, body)
	p.cmd = exec.Command(binary, "serve", "--config", p.configPath)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.exitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("relay logs:\n%s", p.logs.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			t.Fatalf("relay exited at start: %v\n%s", p.exitErr, p.logs.String())
		default:
		}
		resp, err := http.Get("http://" + p.admin + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("relay not ready after 30s:\n%s", p.logs.String())
	return nil
}

// stop sends SIGTERM and returns the exit code.
func (p *relayProc) stop(t *testing.T) int {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(40 * time.Second):
		t.Fatal("relay did not exit within 40s of SIGTERM")
	}
	if ee, ok := p.exitErr.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if p.exitErr != nil {
		t.Fatal(p.exitErr)
	}
	return 0
}

func contains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}
